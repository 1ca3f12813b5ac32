/**
 * The most recently used items, within a count and a total weight (e.g. planned transactions, the
 * memory an item takes); the least recently used go first, never the one just stored. Values may
 * be promises, so callers that miss at once share one load; a load's weight is known when it ends.
 */
export class RecentItems<Value> {
  private readonly entries = new Map<string, { value: Value; weight: number }>();
  private totalWeight = 0;

  constructor(
    private readonly maxItems: number,
    private readonly maxWeight: number,
  ) {}

  get(key: string): Value | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: Value, weight = 0): void {
    this.delete(key);
    this.entries.set(key, { value, weight });
    this.totalWeight += weight;
    for (const oldest of this.entries.keys()) {
      if (oldest === key || (this.entries.size <= this.maxItems && this.totalWeight <= this.maxWeight)) break;
      this.delete(oldest);
    }
  }

  /** Deletes `key` only while it still holds `value`: a load that failed or was overtaken. */
  deleteIf(key: string, value: Value): void {
    if (this.entries.get(key)?.value === value) this.delete(key);
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.totalWeight -= entry.weight;
  }
}
