/**
 * A JSON value as PostgreSQL's jsonb gives it back: numbers and strings as JSON writes them, no
 * `undefined`, and object keys in jsonb's order — shorter keys first, then by their UTF-8 bytes.
 * A command folds the events it just decided through this into the cached state (decision 0033),
 * so the state equals, key order included, what a later reload of the stream would fold.
 */
export function asStoredJson<T>(value: T): T {
  return ordered(JSON.parse(JSON.stringify(value)) as unknown) as T;
}

function ordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ordered);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => compareJsonbKeys(a, b));
  return Object.fromEntries(entries.map(([key, item]) => [key, ordered(item)]));
}

function compareJsonbKeys(a: string, b: string): number {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length - right.length || Buffer.compare(left, right);
}
