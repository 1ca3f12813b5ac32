/** A change the client asked of a transaction. */
export interface TransactionChange {
  readonly notes?: string;
  readonly tagIds?: readonly string[];
  readonly deleted?: true;
}

/**
 * One transaction's writes as the client saw them, field by field: the values the API may show
 * (the last accepted one, and any asked for after it whose answer never came).
 */
export interface TransactionLedger {
  readonly id: string;
  readonly notes: Set<string | null>;
  /** Sorted, joined with commas. */
  readonly tagIds: Set<string>;
  deleteAccepted: boolean;
  deleteAttempted: boolean;
  /** Every notes value a 2xx confirmed, in order: each must show in the activity log. */
  readonly acceptedNotes: string[];
}

export interface LedgerCheck {
  readonly transactionsChecked: number;
  readonly activityChecked: number;
  /** Accepted writes whose effect the API does not show: must be empty. */
  readonly lost: readonly string[];
  /** Transactions listed that no 2xx created: unanswered creates that were stored after all. */
  readonly storedThoughUnanswered: number;
}

/**
 * The client's record of every write it sent. After recovery, each field of each transaction the
 * API shows must hold a value some write left there: the last accepted one, or one asked for after
 * it whose answer never came; every accepted notes edit is in the activity log, every accepted
 * create is listed unless a delete was sent, no accepted delete is listed. An accepted write the
 * API does not show is lost.
 */
export class WriteLedger {
  attempted = 0;
  accepted = 0;
  unanswered = 0;
  readonly transactions: TransactionLedger[] = [];

  created(id: string): TransactionLedger {
    const transaction = { id, notes: new Set<string | null>([null]), tagIds: new Set<string>(['']), deleteAccepted: false, deleteAttempted: false, acceptedNotes: [] };
    this.transactions.push(transaction);
    return transaction;
  }

  /** An accepted change leaves one possible value of its field; an unanswered one adds a possible value. */
  changed(transaction: TransactionLedger, change: TransactionChange, accepted: boolean): void {
    if (change.deleted) {
      transaction.deleteAttempted = true;
      transaction.deleteAccepted ||= accepted;
    }
    if (change.notes !== undefined) {
      if (accepted) {
        transaction.notes.clear();
        transaction.acceptedNotes.push(change.notes);
      }
      transaction.notes.add(change.notes);
    }
    if (change.tagIds !== undefined) {
      if (accepted) transaction.tagIds.clear();
      transaction.tagIds.add([...change.tagIds].sort().join());
    }
  }

  /** Reads every transaction of the user and each edited one's activity from `baseUrl`. */
  async check(baseUrl: string, key: string): Promise<LedgerCheck> {
    const get = async (path: string) => {
      const response = await fetch(`${baseUrl}${path}`, { headers: { Authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(30_000) });
      if (!response.ok) throw new Error(`GET ${path} answered ${response.status}: ${await response.text()}`);
      return response.json() as Promise<Record<string, unknown>>;
    };
    const listed = new Map<string, { notes: string | null; tagIds: string[] }>();
    for (let cursor: string | null = ''; cursor !== null; ) {
      const page = (await get(`/v1/transactions?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)) as {
        transactions: { id: string; notes: string | null; tagIds: string[] }[];
        nextCursor: string | null;
      };
      for (const transaction of page.transactions) listed.set(transaction.id, transaction);
      cursor = page.nextCursor;
    }

    const notesLogged = new Map<string, unknown[]>();
    for (const transaction of this.transactions) {
      if (!listed.has(transaction.id) || transaction.acceptedNotes.length === 0) continue;
      const { events } = (await get(`/v1/transactions/${transaction.id}/activity`)) as { events: { field: string; newValue?: unknown }[] };
      notesLogged.set(transaction.id, events.filter((event) => event.field === 'notes').map((event) => event.newValue));
    }
    const lost = this.transactions.flatMap((transaction) => lostWrites(transaction, listed.get(transaction.id), notesLogged.get(transaction.id) ?? []));
    const activityChecked = notesLogged.size;
    const known = new Set(this.transactions.map((transaction) => transaction.id));
    return { transactionsChecked: this.transactions.length, activityChecked, lost, storedThoughUnanswered: [...listed.keys()].filter((id) => !known.has(id)).length };
  }
}

/** What the API shows of one transaction: its list entry (absent when not listed) and the notes values its activity log records. */
export function lostWrites(transaction: TransactionLedger, shown: { notes: string | null; tagIds: readonly string[] } | undefined, notesLogged: readonly unknown[]): string[] {
  if (!shown) return transaction.deleteAttempted ? [] : [`${transaction.id}: created (2xx) and never deleted, but not listed`];
  const lost: string[] = [];
  if (transaction.deleteAccepted) lost.push(`${transaction.id}: deleted (2xx) but still listed`);
  if (!transaction.notes.has(shown.notes)) lost.push(`${transaction.id}: notes ${JSON.stringify(shown.notes)}, the writes left ${JSON.stringify([...transaction.notes])}`);
  const tags = [...shown.tagIds].sort().join();
  if (!transaction.tagIds.has(tags)) lost.push(`${transaction.id}: tags [${tags}], the writes left ${[...transaction.tagIds].map((set) => `[${set}]`).join(' or ')}`);
  const logged = new Set(notesLogged);
  for (const notes of transaction.acceptedNotes) if (!logged.has(notes)) lost.push(`${transaction.id}: the accepted edit to notes "${notes}" is not in its activity`);
  return lost;
}
