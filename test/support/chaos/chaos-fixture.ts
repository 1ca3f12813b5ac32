import { type Kysely, sql } from 'kysely';
import type { Database } from '../../../src/infrastructure/database/schema.js';
import { ensureUser, issueApiKey } from '../../../src/modules/identity/identity.store.js';

/**
 * How many times a scenario repeats its fault: `short` inside `npm test`; `npm run chaos` sets
 * CHAOS_RUNS (20) and each scenario scales it to its own cost with `share`.
 */
export function chaosRuns(short: number, share = 1): number {
  const asked = Number(process.env.CHAOS_RUNS);
  return Number.isInteger(asked) && asked > 0 ? Math.max(short, Math.round(asked * share)) : short;
}

export const isLongRun = () => Number(process.env.CHAOS_RUNS) > 0;

export interface ChaosUser {
  readonly key: string;
  readonly accountId: string;
  readonly tagIds: readonly string[];
}

/** A user with a read-write key, a manual account and three tags, made through the running service. */
export async function chaosUser(db: Kysely<Database>, baseUrl: string, tags = 3): Promise<ChaosUser> {
  const { user } = await ensureUser(db, `chaos-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`);
  const { key } = await issueApiKey(db, user.id, 'chaos', ['read', 'write'], new Date());
  const accountId = String((await post(baseUrl, key, '/v1/accounts', { name: 'Chaos checking', type: 'bank', subtype: 'checking', currentBalance: 0 })).id);
  const tagIds: string[] = [];
  for (let i = 0; i < tags; i += 1) tagIds.push(String((await post(baseUrl, key, '/v1/tags', { name: `chaos ${i}`, color: 'blue' })).id));
  return { key, accountId, tagIds };
}

export async function post(baseUrl: string, key: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

/** A tag of its own on `count` transactions outside the load's ledger, for a tag deletion's fan-out to take off. */
export async function tagOnTransactions(baseUrl: string, user: ChaosUser, name: string, count: number): Promise<string> {
  const tagId = String((await post(baseUrl, user.key, '/v1/tags', { name, color: 'red' })).id);
  for (let i = 0; i < count; i += 1) await post(baseUrl, user.key, '/v1/transactions', { accountId: user.accountId, amount: -1, date: '2026-11-21', name: `tagged ${i}`, tagIds: [tagId] });
  return tagId;
}

/** Transactions of the read model still carrying the tag. */
export async function carryingTag(db: Kysely<Database>, tagId: string): Promise<number> {
  return (await sql<{ count: number }>`SELECT count(*)::int AS count FROM transactions WHERE tag_ids @> ARRAY[${tagId}]::uuid[]`.execute(db)).rows[0].count;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A random whole number of milliseconds in [min, max). */
export const randomMs = (min: number, max: number) => Math.floor(min + Math.random() * (max - min));

export function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** min / median / max of a list of durations. */
export function spread(values: readonly number[]): string {
  if (values.length === 0) return 'n/a';
  const sorted = [...values].sort((a, b) => a - b);
  return `min ${seconds(sorted[0])}, median ${seconds(sorted[Math.floor(sorted.length / 2)])}, max ${seconds(sorted[sorted.length - 1])}`;
}

/** One block per scenario in the jest output: a title, then aligned `label: value` lines. */
export function printSummary(title: string, rows: readonly (readonly [string, string | number])[], extra: readonly string[] = []): void {
  const width = Math.max(...rows.map(([label]) => label.length));
  console.log([`CHAOS ${title}`, ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`), ...extra].join('\n'));
}
