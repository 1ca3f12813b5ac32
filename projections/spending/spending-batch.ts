import { unhandled } from '../../src/core/exhaustive.js';
import { normaliseDecimal } from '../../src/core/money.js';
import type { RecordedEvent } from '../../src/core/events.js';
import type { TransactionEvent } from '../../src/modules/transactions/transaction.js';

/** A live transaction as the spending aggregates see it. */
export interface SpendingTransaction {
  readonly id: string;
  readonly userId: string;
  readonly accountId: string;
  readonly categoryId: string | null;
  readonly date: string;
  readonly amount: string;
  readonly pending: boolean;
  /** One side of a transfer between the user's accounts: neither spending nor income (decision 0043). */
  readonly paired: boolean;
  /** A split transaction's parts, each counted under its own category; null when not split. */
  readonly parts: readonly SpendingPart[] | null;
  readonly revision: number;
}

export interface SpendingPart {
  readonly categoryId: string | null;
  readonly amount: string;
}

/** One transaction's amount added to (`sign` 1) or taken from (−1) the aggregate row of its key. */
export interface AggregateDelta {
  readonly userId: string;
  readonly accountId: string;
  readonly categoryId: string | null;
  readonly day: string;
  readonly amount: string;
  readonly sign: 1 | -1;
}

export interface SpendingChanges {
  readonly upserts: SpendingTransaction[];
  readonly deletes: string[];
  readonly deltas: AggregateDelta[];
}

/**
 * A batch of transaction events folded in memory over the rows they touch: what each transaction
 * was when the batch began (or since the last `takeChanges`) and what it is now. The aggregates
 * then move by the difference only — the old contribution out, the new one in — so several edits
 * of one transaction in a batch cost one pair of deltas. Only posted transactions contribute.
 */
export class SpendingBatch {
  private readonly baseline: Map<string, SpendingTransaction | null>;
  private readonly current: Map<string, SpendingTransaction | null>;

  constructor(loaded: Iterable<SpendingTransaction>) {
    this.baseline = new Map([...loaded].map((row) => [row.id, row]));
    this.current = new Map(this.baseline);
  }

  apply(recorded: RecordedEvent): void {
    const event = { type: recorded.type, data: recorded.data } as TransactionEvent;
    const revision = Number(recorded.revision);
    const before = this.current.get(event.data.transactionId) ?? null;
    switch (event.type) {
      case 'TransactionCreated':
      case 'TransactionImported': {
        if (before) return; // a replay
        const { transactionId, accountId, categoryId, date, amount, pending } = event.data;
        this.current.set(transactionId, { id: transactionId, userId: recorded.metadata.userId, accountId, categoryId, date, amount, pending, paired: false, parts: null, revision });
        return;
      }
      case 'TransactionEdited': {
        if (!before || before.revision >= revision) return;
        let after: SpendingTransaction = { ...before, revision };
        for (const change of event.data.changes) {
          if (change.field === 'amount') after = { ...after, amount: change.newValue as string };
          if (change.field === 'date') after = { ...after, date: change.newValue as string };
          if (change.field === 'categoryId') after = { ...after, categoryId: change.newValue as string | null };
        }
        if (event.data.provider) after = { ...after, pending: event.data.provider.pending };
        this.current.set(before.id, after);
        return;
      }
      case 'TransactionDeleted':
      case 'TransactionRemoved':
      case 'TransactionReplaced':
        if (before) this.current.set(before.id, null);
        return;
      case 'TransferPaired':
      case 'TransferUnpaired':
        if (before && before.revision < revision) this.current.set(before.id, { ...before, paired: event.type === 'TransferPaired', revision });
        return;
      case 'TransactionSplit':
      case 'TransactionSplitsCleared': {
        if (!before || before.revision >= revision) return;
        const parts = event.type === 'TransactionSplit' ? event.data.splits.map(({ categoryId, amount }) => ({ categoryId, amount })) : null;
        this.current.set(before.id, { ...before, parts, revision });
        return;
      }
      case 'TagApplied':
      case 'TagRemoved':
        return;
      default:
        unhandled(event);
    }
  }

  /** The accounts' rows left the tables (a deleted account, a disconnected item): forget them here too. */
  forgetAccounts(accountIds: readonly string[]): void {
    const gone = new Set(accountIds);
    for (const map of [this.baseline, this.current]) {
      for (const [id, row] of map) if (row && gone.has(row.accountId)) map.set(id, null);
    }
  }

  /** What changed since the batch began or the last call; the current state becomes the new baseline. */
  takeChanges(): SpendingChanges {
    const changes: SpendingChanges = { upserts: [], deletes: [], deltas: [] };
    for (const [id, after] of this.current) {
      const before = this.baseline.get(id) ?? null;
      if (before === after) continue;
      if (after) changes.upserts.push(after);
      else changes.deletes.push(id);
      if (before && contributes(before) && !sameContribution(before, after)) changes.deltas.push(...deltasOf(before, -1));
      if (after && contributes(after) && !sameContribution(after, before)) changes.deltas.push(...deltasOf(after, 1));
      this.baseline.set(id, after);
    }
    return changes;
  }
}

const contributes = (row: SpendingTransaction) => !row.pending && !row.paired;

function sameContribution(row: SpendingTransaction, other: SpendingTransaction | null): boolean {
  return (
    other !== null &&
    contributes(other) &&
    other.userId === row.userId &&
    other.accountId === row.accountId &&
    other.categoryId === row.categoryId &&
    other.date === row.date &&
    normaliseDecimal(other.amount) === normaliseDecimal(row.amount) &&
    JSON.stringify(partsOf(other)) === JSON.stringify(partsOf(row))
  );
}

/** What the transaction counts under each category: its parts when split, else all of it under its own. */
function partsOf(row: SpendingTransaction): SpendingPart[] {
  return (row.parts ?? [{ categoryId: row.categoryId, amount: row.amount }]).map((part) => ({ categoryId: part.categoryId, amount: normaliseDecimal(part.amount) }));
}

function deltasOf(row: SpendingTransaction, sign: 1 | -1): AggregateDelta[] {
  return partsOf(row).map((part) => ({ userId: row.userId, accountId: row.accountId, categoryId: part.categoryId, day: row.date, amount: part.amount, sign }));
}
