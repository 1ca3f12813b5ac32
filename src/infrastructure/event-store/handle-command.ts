import { type Decider, continuesFrom, foldOnto } from '../../core/decider.js';
import { DomainRuleError, NotFoundError } from '../../core/errors.js';
import { type Actor, type DomainEvent, type EventMetadata, type GlobalPosition, WrongExpectedRevisionError } from '../../core/events.js';
import type { EventStore } from './event-store.port.js';
import { type CachedStreamState, type StreamStateCache, streamStateCacheOf } from './stream-state-cache.js';

/** Who asks, and why: becomes every appended event's metadata. */
export interface CommandContext {
  readonly userId: string;
  readonly actor: Actor;
  readonly requestId: string;
  readonly correlationId?: string;
  readonly causationId?: string;
  readonly now: Date;
}

export interface CommandOutcome<Event extends DomainEvent, State> {
  readonly events: Event[];
  readonly state: State;
  /** Position of the last appended event; null when the command changed nothing. */
  readonly position: GlobalPosition | null;
}

/** Each round of a conflict lets at least one writer through; jitter spreads the rest. */
const MAX_ATTEMPTS = 25;

/**
 * Load the stream, fold, decide, append at the revision read. A concurrent append makes the
 * append fail; we reload and decide again, so no update is ever lost. The fold starts from the
 * state cached after an earlier command on the stream (docs/decisions/0022), so only the events
 * appended since — by this process or any other — are read.
 */
export async function handleCommand<Command, Event extends DomainEvent, State>(
  store: EventStore,
  streamId: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  context: CommandContext,
  resource: string,
): Promise<CommandOutcome<Event, State>> {
  const cache = streamStateCacheOf(store);
  for (let attempt = 1; ; attempt += 1) {
    const stream = await loadStream(store, cache, streamId, decider);
    // Another user's stream is, to this user, a stream that does not exist.
    const foreign = stream !== null && stream.owner !== context.userId;
    const state = stream === null || foreign ? decider.initialState() : stream.state;
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, state, position: null };
    if (foreign) throw new NotFoundError(resource);
    try {
      const metadata = metadataFor(context);
      const result = await store.appendToStream(streamId, events.map((event) => ({ type: event.type, data: event.data, metadata })), stream?.revision ?? 'no_stream');
      return { events, state: events.reduce(decider.evolve, state), position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      cache.delete(decider, streamId);
      if (attempt >= MAX_ATTEMPTS) {
        throw new DomainRuleError('CONCURRENT_MODIFICATION', `${resource} was changed by another request at the same time; try again.`, 409);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt, 10)));
    }
  }
}

/**
 * The stream folded up to its last stored event, null when it has none. From the cache: the events
 * after the cached revision, which must continue it revision by revision; anything else (a gap, a
 * stream that shrank) drops the entry and reads the whole stream. Only stored events are ever
 * folded into the cache, never the ones a command just decided.
 */
async function loadStream<Event extends DomainEvent, State>(
  store: EventStore,
  cache: StreamStateCache,
  streamId: string,
  decider: Decider<unknown, Event, State>,
): Promise<CachedStreamState<State> | null> {
  const cached = cache.get<State>(decider, streamId);
  if (cached) {
    const tail = await store.readStream(streamId, { fromRevision: cached.revision + 1n });
    if (continuesFrom(cached.revision, tail)) {
      if (tail.length === 0) return cached;
      const next = { owner: cached.owner, revision: tail[tail.length - 1].revision, state: foldOnto(decider, cached.state, tail) };
      cache.set(decider, streamId, next);
      return next;
    }
    cache.delete(decider, streamId);
  }
  const history = await store.readStream(streamId);
  if (history.length === 0) return null;
  // Folded for its owner, whoever asks: to anyone else handleCommand treats it as absent.
  const loaded = { owner: history[0].metadata.userId, revision: history[history.length - 1].revision, state: foldOnto(decider, decider.initialState(), history) };
  cache.set(decider, streamId, loaded);
  return loaded;
}

/** The metadata every event appended on behalf of `context` carries. */
export function metadataFor(context: CommandContext): EventMetadata {
  return {
    userId: context.userId,
    actor: context.actor,
    requestId: context.requestId,
    causationId: context.causationId ?? context.requestId,
    correlationId: context.correlationId ?? context.requestId,
    occurredAt: context.now.toISOString(),
    // The event store's upcasting layer stamps each event with its type's current version.
    schemaVersion: 1,
  };
}
