import { foldOwnStream } from '../../../core/decider.js';
import type { EventStore } from '../../../infrastructure/event-store/event-store.port.js';
import { type CommandContext, handleCommand, metadataFor } from '../../../infrastructure/event-store/handle-command.js';
import { initialTransactionState, type TransactionState, transactionStreamId } from '../../transactions/transaction.js';
import { transactionDecider } from '../../transactions/transaction.decider.js';
import { carryOverOf, decideImport } from '../../transactions/transaction-import.decider.js';
import type { TransactionImported } from '../../transactions/imported-transaction.js';
import type { SyncPage } from '../bank-link.port.js';
import { linkedAccountIdOf } from '../link-items/link-item.js';
import { importedTransactionIdOf, importedTransactionOf, providerValuesFrom } from './provider-transaction.mapping.js';

export interface PreparedPage {
  readonly page: SyncPage;
  readonly imports: readonly TransactionImported['data'][];
}

/** Streams changed at once by the per-stream steps (retirements, modifications, removals). */
const CONCURRENCY = 16;

/**
 * Applies one page's changes to the transaction streams of one user's item, actor `system`:
 * every added transaction's stream is created in one bulk append (a stream that exists is left
 * as it is, so a page applied again appends nothing twice); then the pending transactions the
 * posted ones replace are retired, then modifications, then removals, one stream each.
 */
export class SyncPageWriter {
  constructor(
    private readonly store: EventStore,
    private readonly userId: string,
    private readonly linkItemId: string,
    private readonly context: () => CommandContext,
  ) {}

  /** The page's imports as this user's transactions: pure work, done while the page before is written. */
  prepare(page: SyncPage): PreparedPage {
    return { page, imports: page.added.map((transaction) => importedTransactionOf(this.userId, this.linkItemId, transaction)) };
  }

  /**
   * `leftAccountIds`: accounts the user disconnected from the item; nothing of theirs is imported or
   * changed any more (their transactions left with them, and a sync must not bring them back).
   */
  async write({ page, imports: prepared }: PreparedPage, leftAccountIds: ReadonlySet<string> = new Set()): Promise<void> {
    const imports = prepared.filter((data) => !leftAccountIds.has(data.accountId));
    const modified = page.modified.filter((transaction) => !leftAccountIds.has(linkedAccountIdOf(this.userId, this.linkItemId, transaction.accountId)));
    const pendingIds = imports.flatMap((data) => (data.replacesTransactionId === null ? [] : [data.replacesTransactionId]));
    const pendingBefore = await this.statesOf(pendingIds);
    const metadata = metadataFor(this.context());
    await this.store.appendToNewStreams(
      imports.map((data) => {
        const pending = data.replacesTransactionId === null ? null : pendingBefore.get(data.replacesTransactionId);
        const carryOver = pending ? carryOverOf(data.replacesTransactionId as string, pending) : null;
        const events = decideImport({ type: 'ImportTransaction', data, carryOver }, initialTransactionState());
        return { streamId: transactionStreamId(data.transactionId), events: events.map((event) => ({ type: event.type, data: event.data, metadata })) };
      }),
    );
    // A posted transaction whose pending one was never imported (it posted before the first sync's window) retires nothing.
    const importedHere = new Set(imports.map((data) => data.transactionId));
    const retirements = imports.filter(({ replacesTransactionId: id }) => id !== null && (importedHere.has(id) || pendingBefore.get(id)?.status !== 'absent'));
    await inParallel(retirements, (data) => this.command(data.replacesTransactionId as string, (transactionId) => ({ type: 'RetireReplacedTransaction', transactionId, byTransactionId: data.transactionId })));
    await inParallel(modified, (transaction) =>
      this.command(importedTransactionIdOf(this.userId, this.linkItemId, transaction.transactionId), (transactionId) => ({ type: 'UpdateFromProvider', transactionId, provider: providerValuesFrom(this.userId, transaction) })),
    );
    await inParallel(page.removed, ({ transactionId }) => this.command(importedTransactionIdOf(this.userId, this.linkItemId, transactionId), (id) => ({ type: 'RemoveImportedTransaction', transactionId: id })));
  }

  private async statesOf(transactionIds: readonly string[]): Promise<Map<string, TransactionState>> {
    const streams = await this.store.readStreams(transactionIds.map(transactionStreamId));
    return new Map(transactionIds.map((transactionId) => [transactionId, foldOwnStream(transactionDecider, streams.get(transactionStreamId(transactionId)) ?? [], this.userId)]));
  }

  private async command(transactionId: string, command: (transactionId: string) => Parameters<typeof transactionDecider.decide>[0]): Promise<void> {
    await handleCommand(this.store, transactionStreamId(transactionId), transactionDecider, command(transactionId), this.context(), 'Transaction');
  }
}

/** Runs `work` over `items`, CONCURRENCY at a time; returns (or throws the first failure) only once every worker has stopped. */
async function inParallel<Item>(items: readonly Item[], work: (item: Item) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < items.length && !failed) {
      const item = items[next];
      next += 1;
      try {
        await work(item);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const outcomes = await Promise.allSettled(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure) throw failure.reason;
}
