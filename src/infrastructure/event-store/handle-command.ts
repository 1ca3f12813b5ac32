import { CompiledQuery, type Kysely } from 'kysely';
import { type Decider, continuesFrom, foldOnto } from '../../core/decider.js';
import { DomainRuleError, NotFoundError } from '../../core/errors.js';
import { type Actor, type DomainEvent, type EventMetadata, type GlobalPosition, WrongExpectedRevisionError } from '../../core/events.js';
import { asStoredJson } from '../../core/stored-json.js';
import type { Database } from '../database/schema.js';
import type { AppendClaim, AppendGuard, EventStore } from './event-store.port.js';
import { type CachedStreamState, type StreamStateCache, streamStateCacheOf } from './stream-state-cache.js';

/** Who asks, and why: becomes every appended event's metadata. */
export interface CommandContext {
  readonly userId: string;
  readonly actor: Actor;
  readonly requestId: string;
  readonly correlationId?: string;
  readonly causationId?: string;
  readonly now: Date;
  /** The request's Idempotency-Key, recorded in its events' metadata. */
  readonly idempotencyKey?: string;
  /** What the key was first used for (decision 0040); not recorded. */
  readonly idempotencyFingerprint?: string;
  /** The key's claim, made with the request's first append (decision 0040). */
  readonly claimWithAppend?: AppendClaim;
  /** The rule on whose behalf a system write is made, recorded in its events' metadata. */
  readonly ruleId?: string;
}

export interface CommandOutcome<Event extends DomainEvent, State> {
  readonly events: Event[];
  readonly state: State;
  /** Position of the last appended event; null when the command changed nothing. */
  readonly position: GlobalPosition | null;
  /** Read models the append projected its events into in its own transaction: nothing to wait for there. */
  readonly appliedInline?: readonly string[];
}

export interface CommandOptions {
  /**
   * Conditions on the read models that must hold for the events (the transaction is still listed,
   * the account is a manual one of the user's): checked in the append's own transaction where the
   * store can (PostgreSQL), otherwise read from `db` just before the append.
   */
  readonly guards?: readonly AppendGuard[];
  readonly db?: Kysely<Database>;
}

/** Each round of a conflict lets at least one writer through; jitter spreads the rest. */
const MAX_ATTEMPTS = 25;

/**
 * Decide on the stream's folded state and append at its revision. The state comes from the cache
 * of this process when it has one (decision 0033), without reading the stream: a stale one is
 * caught by the store's expected revision, and the retry reads what was appended since. The
 * events appended are folded into the cache as the store keeps them (`asStoredJson`), so the next
 * command on the stream reads nothing either. No update is ever lost.
 */
export async function handleCommand<Command, Event extends DomainEvent, State>(
  store: EventStore,
  streamId: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  context: CommandContext,
  resource: string,
  options: CommandOptions = {},
): Promise<CommandOutcome<Event, State>> {
  const cache = streamStateCacheOf(store);
  const guards = options.guards ?? [];
  let trustCache = true;
  for (let attempt = 1; ; attempt += 1) {
    const cached = trustCache ? cache.get<State>(decider, streamId) : undefined;
    trustCache = false;
    const stream = cached ?? (await loadStream(store, cache, streamId, decider));
    // Another user's stream is, to this user, a stream that does not exist.
    const foreign = stream !== null && stream.owner !== context.userId;
    const state = stream === null || foreign ? decider.initialState() : stream.state;
    const events = decider.decide(command, state);
    if (events.length === 0) {
      // No append would find out that the cached state was stale: read what came since, and decide again.
      if (cached) continue;
      return { events, state, position: null };
    }
    if (foreign) throw new NotFoundError(resource);
    if (!store.transactionalGuards) await checkGuards(guards, options.db);
    try {
      const metadata = metadataFor(context);
      const stored = events.map((event) => ({ type: event.type, data: asStoredJson(event.data) }) as Event);
      const claim = context.claimWithAppend;
      const claiming = claim !== undefined && !claim.claimed && store.transactionalGuards;
      const result = await store.appendToStream(streamId, stored.map((event) => ({ type: event.type, data: event.data, metadata })), stream?.revision ?? 'no_stream', { guards: claiming ? [...guards, claim.guard] : guards });
      if (claiming) claim.claimed = true;
      const next = stored.reduce(decider.evolve, state);
      cache.set(decider, streamId, { owner: context.userId, revision: result.nextExpectedRevision, state: next });
      return { events: stored, state: next, position: result.position, appliedInline: result.appliedInline };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= MAX_ATTEMPTS) {
        cache.delete(decider, streamId);
        throw new DomainRuleError('CONCURRENT_MODIFICATION', `${resource} was changed by another request at the same time; try again.`, 409);
      }
      // Only a lost race waits: a stale cache is found out on the first try and read at once.
      if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt, 10)));
    }
  }
}

/** Guards read just before the append, for a store that cannot check them in its own transaction. */
async function checkGuards(guards: readonly AppendGuard[], db: Kysely<Database> | undefined): Promise<void> {
  if (guards.length === 0) return;
  if (!db) throw new Error('guards need the read models’ database on this event store');
  for (const guard of guards) {
    const { rows } = await db.executeQuery<{ holds: boolean }>(CompiledQuery.raw(`SELECT (${guard.condition.sql}) AS holds`, [...guard.condition.parameters]));
    if (rows[0]?.holds !== true) throw guard.refusal();
  }
}

/**
 * A stream's state as `userId` may see it (another user's stream is, to them, one that does not
 * exist), read through the same cache as handleCommand, so a command decided on it next reads
 * nothing again: what a process that must look at a stream before it decides reads (rules).
 */
export async function currentState<Event extends DomainEvent, State>(store: EventStore, streamId: string, decider: Decider<unknown, Event, State>, userId: string): Promise<State> {
  const stream = await loadStream(store, streamStateCacheOf(store), streamId, decider);
  return stream === null || stream.owner !== userId ? decider.initialState() : stream.state;
}

/**
 * The stream folded up to its last stored event, null when it has none. From the cache: the events
 * after the cached revision, which must continue it revision by revision; anything else (a gap, a
 * stream that shrank) drops the entry and reads the whole stream.
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
  // Keys in RFC 8785's order: the hash chain's canonical JSON then writes the metadata in one JSON.stringify (event-chain.ts).
  return {
    actor: context.actor,
    causationId: context.causationId ?? context.requestId,
    correlationId: context.correlationId ?? context.requestId,
    ...(context.idempotencyKey === undefined ? {} : { idempotencyKey: context.idempotencyKey }),
    occurredAt: context.now.toISOString(),
    requestId: context.requestId,
    ...(context.ruleId === undefined ? {} : { ruleId: context.ruleId }),
    // The event store's upcasting layer stamps each event with its type's current version.
    schemaVersion: 1,
    userId: context.userId,
  };
}
