import type { EventStore } from './event-store.port.js';

/** A stream as one decider folded it from the stored events up to `revision`. */
export interface CachedStreamState<State> {
  readonly revision: bigint;
  /** The user of the stream's first event: whose stream it is. */
  readonly owner: string;
  readonly state: State;
}

/** Enough for every stream the users active at once write to; an account state is a few hundred bytes. */
export const STREAM_STATE_CACHE_SIZE = 4096;

/**
 * The latest folded state of recently written streams, per decider (two deciders over one stream
 * keep two entries), least recently used first out. States go in deep-frozen: a decide or an
 * evolve that mutated one would corrupt every later command on the stream, so it throws instead.
 */
export class StreamStateCache {
  private readonly entries = new Map<string, CachedStreamState<unknown>>();

  constructor(readonly capacity = STREAM_STATE_CACHE_SIZE) {}

  get size(): number {
    return this.entries.size;
  }

  get<State>(decider: object, streamId: string): CachedStreamState<State> | undefined {
    const key = keyOf(decider, streamId);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry as CachedStreamState<State>;
  }

  /** Two commands at once in this process may finish out of order: an older revision never replaces a newer one. */
  set<State>(decider: object, streamId: string, entry: CachedStreamState<State>): void {
    const key = keyOf(decider, streamId);
    const kept = this.entries.get(key);
    if (kept && kept.revision > entry.revision) return;
    deepFreeze(entry.state);
    this.entries.delete(key);
    this.entries.set(key, Object.freeze({ ...entry }));
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  delete(decider: object, streamId: string): void {
    this.entries.delete(keyOf(decider, streamId));
  }
}

const caches = new WeakMap<EventStore, StreamStateCache>();

/** One cache per store object: states folded from one database are never served for another. */
export function streamStateCacheOf(store: EventStore): StreamStateCache {
  let cache = caches.get(store);
  if (!cache) {
    cache = new StreamStateCache();
    caches.set(store, cache);
  }
  return cache;
}

const deciderIds = new WeakMap<object, number>();
let nextDeciderId = 0;

function keyOf(decider: object, streamId: string): string {
  let id = deciderIds.get(decider);
  if (id === undefined) {
    id = nextDeciderId += 1;
    deciderIds.set(decider, id);
  }
  return `${id}:${streamId}`;
}

const MAP_WRITES = ['set', 'delete', 'clear'] as const;
const SET_WRITES = ['add', 'delete', 'clear'] as const;

/**
 * Freezes a value and everything it reaches; what is frozen already is taken as done, so a state
 * evolved from a cached one costs only its new parts. Maps and Sets get writers that throw.
 */
export function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || ArrayBuffer.isView(value)) return;
  if (value instanceof Map) {
    refuseWrites(value, MAP_WRITES);
    for (const [key, item] of value) {
      deepFreeze(key);
      deepFreeze(item);
    }
  } else if (value instanceof Set) {
    refuseWrites(value, SET_WRITES);
    for (const item of value) deepFreeze(item);
  }
  Object.freeze(value);
  for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
}

function refuseWrites(collection: object, methods: readonly string[]): void {
  for (const method of methods) {
    Object.defineProperty(collection, method, {
      value: () => {
        throw new TypeError(`Cannot ${method} on a cached (frozen) stream state: copy it first`);
      },
    });
  }
}
