import { randomUUID } from 'node:crypto';
import { type TransactionChange, type TransactionLedger, WriteLedger } from './write-ledger.js';

/**
 * A steady stream of transaction writes (create, edit notes, replace tags, delete) from a few
 * workers, each owning the transactions it created so no two requests race on one stream. Every
 * request and its outcome goes into the ledger; the service it goes to is chosen per request from
 * the targets still alive.
 */
export interface LoadOptions {
  readonly key: string;
  readonly accountId: string;
  readonly tagIds: readonly string[];
  /** Requests per second over all workers. */
  readonly ratePerSecond: number;
  readonly workers: number;
  /** Base URLs to spread writes over; asked before each request. */
  readonly targets: () => readonly string[];
  /** A request that has not answered by then counts as `timeout`, its outcome unknown. */
  readonly requestTimeoutMs?: number;
}

export interface Outcome {
  readonly at: number;
  readonly ms: number;
  /** An HTTP status, or `refused` / `reset` / `timeout` when none came back. */
  readonly status: number | 'refused' | 'reset' | 'timeout';
  readonly phase: string;
  /** The answer had a JSON body (an error says what went wrong). */
  readonly withBody: boolean;
  /** An error answer's code, e.g. READ_MODEL_LAGGING: saved, not yet visible. */
  readonly code?: string;
}

export class WriteLoad {
  readonly ledger = new WriteLedger();
  readonly outcomes: Outcome[] = [];
  /** The first body seen with each error status, to show what a client is told. */
  readonly errorBodies = new Map<number, string>();
  /** A label the next requests are filed under (before / during / after an outage). */
  phase = 'load';
  private running = false;
  private workers: Promise<void>[] = [];

  constructor(private readonly options: LoadOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    const interval = (1000 * this.options.workers) / this.options.ratePerSecond;
    this.workers = Array.from({ length: this.options.workers }, (_, worker) => this.work(worker, interval));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  /** The first answered 2xx write sent at or after `since` (performance.now()), if any yet. */
  firstAcceptedSince(since: number): Outcome | undefined {
    return this.outcomes.find((outcome) => outcome.at >= since && typeof outcome.status === 'number' && outcome.status < 300);
  }

  private async work(worker: number, intervalMs: number): Promise<void> {
    const owned: TransactionLedger[] = [];
    let next = performance.now() + Math.random() * intervalMs;
    for (let i = 0; this.running; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
      // After a slow answer, no burst to catch up: the rate stays the rate.
      next = Math.max(next + intervalMs, performance.now());
      if (!this.running) return;
      const live = owned.filter((transaction) => !transaction.deleteAttempted);
      const roll = Math.random();
      if (live.length < 3 || roll < 0.35) {
        const created = await this.create(worker, i);
        if (created) owned.push(created);
        continue;
      }
      const transaction = live[Math.floor(Math.random() * live.length)];
      if (roll < 0.7) await this.change(transaction, { notes: `w${worker}-${i}-${randomUUID().slice(0, 8)}` }, 'PATCH', `/v1/transactions/${transaction.id}`);
      else if (roll < 0.9) await this.change(transaction, { tagIds: this.someTags() }, 'PUT', `/v1/transactions/${transaction.id}/tags`);
      else await this.change(transaction, { deleted: true }, 'DELETE', `/v1/transactions/${transaction.id}`);
    }
  }

  private async create(worker: number, i: number): Promise<TransactionLedger | null> {
    const body = { accountId: this.options.accountId, amount: -(1 + (i % 97)), date: '2026-11-20', name: `chaos ${worker}-${i}` };
    const response = await this.send('POST', '/v1/transactions', body);
    this.ledger.attempted += 1;
    if (response.ok) {
      this.ledger.accepted += 1;
      return this.ledger.created(String((response.body as { id: string }).id));
    }
    // An unanswered create may still be stored, under an id the client never learnt: it is not in the ledger.
    this.ledger.unanswered += 1;
    return null;
  }

  private async change(transaction: TransactionLedger, change: TransactionChange, method: string, path: string): Promise<void> {
    const body = change.deleted ? undefined : change.notes !== undefined ? { notes: change.notes } : { tagIds: change.tagIds };
    const response = await this.send(method, path, body);
    this.ledger.attempted += 1;
    if (response.ok) this.ledger.accepted += 1;
    else this.ledger.unanswered += 1;
    this.ledger.changed(transaction, change, response.ok);
  }

  private someTags(): string[] {
    return this.options.tagIds.filter(() => Math.random() < 0.5).sort();
  }

  private async send(method: string, path: string, body: unknown): Promise<{ ok: boolean; body: unknown }> {
    const targets = this.options.targets();
    const base = targets[Math.floor(Math.random() * targets.length)];
    const at = performance.now();
    const phase = this.phase;
    let status: Outcome['status'];
    let parsed: unknown = null;
    try {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${this.options.key}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 30_000),
      });
      status = response.status;
      parsed = await response.json().catch(() => null);
      if (status >= 300 && !this.errorBodies.has(status)) this.errorBodies.set(status, JSON.stringify(parsed).slice(0, 200));
    } catch (error) {
      status = failureKind(error);
    }
    this.outcomes.push({ at, ms: performance.now() - at, status, phase, withBody: parsed !== null, code: errorCode(parsed) });
    return { ok: typeof status === 'number' && status >= 200 && status < 300, body: parsed };
  }
}

function errorCode(body: unknown): string | undefined {
  const shaped = body as { code?: unknown; error?: { code?: unknown } } | null;
  const code = shaped?.code ?? shaped?.error?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Not accepted, and not a 503 READ_MODEL_LAGGING either (that one says the write was saved). */
export const failedOutright = (outcome: Outcome) =>
  (typeof outcome.status !== 'number' || outcome.status >= 300) && !(outcome.status === 503 && outcome.code === 'READ_MODEL_LAGGING');

function failureKind(error: unknown): 'refused' | 'reset' | 'timeout' {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'timeout';
  const code = (error as { cause?: { code?: string } }).cause?.code;
  return code === 'ECONNREFUSED' ? 'refused' : 'reset';
}

/** `{ '201': 40, '503': 2, refused: 7 }` in one line. */
export function statusCounts(outcomes: readonly Outcome[]): string {
  const counts = new Map<string, number>();
  for (const outcome of outcomes) counts.set(String(outcome.status), (counts.get(String(outcome.status)) ?? 0) + 1);
  return [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, count]) => `${status}×${count}`)
    .join(' ') || 'none';
}
