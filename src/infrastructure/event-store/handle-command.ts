import { type Decider, foldOwnStream } from '../../core/decider.js';
import { DomainRuleError, NotFoundError } from '../../core/errors.js';
import { type Actor, type DomainEvent, type EventMetadata, type GlobalPosition, WrongExpectedRevisionError } from '../../core/events.js';
import type { EventStore } from './event-store.port.js';

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
 * append fail; we reload and decide again, so no update is ever lost.
 */
export async function handleCommand<Command, Event extends DomainEvent, State>(
  store: EventStore,
  streamId: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  context: CommandContext,
  resource: string,
): Promise<CommandOutcome<Event, State>> {
  for (let attempt = 1; ; attempt += 1) {
    const history = await store.readStream(streamId);
    const foreign = history.length > 0 && history[0].metadata.userId !== context.userId;
    const state = foldOwnStream(decider, history, context.userId);
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, state, position: null };
    // Another user's stream is, to this user, a stream that does not exist.
    if (foreign) throw new NotFoundError(resource);
    const expected = history.length === 0 ? 'no_stream' : history[history.length - 1].revision;
    try {
      const metadata = metadataFor(context);
      const result = await store.appendToStream(streamId, events.map((event) => ({ type: event.type, data: event.data, metadata })), expected);
      return { events, state: events.reduce(decider.evolve, state), position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= MAX_ATTEMPTS) {
        throw new DomainRuleError('CONCURRENT_MODIFICATION', `${resource} was changed by another request at the same time; try again.`, 409);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt, 10)));
    }
  }
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
