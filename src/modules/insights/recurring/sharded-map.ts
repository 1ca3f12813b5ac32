/**
 * A string-keyed map split into shards, so that a change copies only the shards it writes to
 * instead of the whole map: an index over 100k transactions stays cheap to update.
 */
const SHARD_COUNT = 256;

export interface ShardedMap<V> {
  readonly shards: readonly ReadonlyMap<string, V>[];
}

export function emptyShardedMap<V>(): ShardedMap<V> {
  return { shards: Array.from({ length: SHARD_COUNT }, () => new Map<string, V>()) };
}

export function shardedGet<V>(map: ShardedMap<V>, key: string): V | undefined {
  return (map.shards[shardOf(key)] as ReadonlyMap<string, V>).get(key);
}

/** Copy-on-write editing: the map the draft started from is never written to. */
export class ShardedMapDraft<V> {
  private readonly shards: ReadonlyMap<string, V>[];
  private readonly owned = new Set<number>();

  constructor(base: ShardedMap<V>) {
    this.shards = [...base.shards];
  }

  get(key: string): V | undefined {
    return (this.shards[shardOf(key)] as ReadonlyMap<string, V>).get(key);
  }

  set(key: string, value: V): void {
    this.writable(shardOf(key)).set(key, value);
  }

  delete(key: string): void {
    const shard = shardOf(key);
    if ((this.shards[shard] as ReadonlyMap<string, V>).has(key)) this.writable(shard).delete(key);
  }

  result(): ShardedMap<V> {
    return { shards: this.shards };
  }

  private writable(shard: number): Map<string, V> {
    if (!this.owned.has(shard)) {
      this.shards[shard] = new Map(this.shards[shard]);
      this.owned.add(shard);
    }
    return this.shards[shard] as Map<string, V>;
  }
}

/** FNV-1a: fast and evenly spread over ids; it only balances shards, so it need not be strong. */
function shardOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let position = 0; position < key.length; position += 1) {
    hash ^= key.charCodeAt(position);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % SHARD_COUNT;
}
