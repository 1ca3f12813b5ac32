import type { Clock } from '../../../core/clock.js';
import { WrongExpectedRevisionError } from '../../../core/events.js';
import type { DatabaseConnection } from '../../../infrastructure/database/database.js';
import type { EventStore } from '../../../infrastructure/event-store/event-store.port.js';
import { type CommandContext, handleCommand, metadataFor } from '../../../infrastructure/event-store/handle-command.js';
import type { JobDefinition } from '../../../infrastructure/jobs/job.js';
import { initialTransactionState, type TransactionEvent, type TransactionState, transactionStreamId } from '../../transactions/transaction.js';
import { transactionDecider } from '../../transactions/transaction.decider.js';
import { carryOverOf, decideImport } from '../../transactions/transaction-import.decider.js';
import { BankLinkError, type ProviderTransaction, type SyncPage } from '../bank-link.port.js';
import type { BankLink } from '../bank-link.wiring.js';
import { type LinkItemEvent, type LinkItemState, linkItemStreamId, linkItemUuidOf } from '../link-items/link-item.js';
import { linkItemDecider } from '../link-items/link-item.decider.js';
import { importedTransactionOf, importedTransactionIdOf, providerValuesFrom } from './provider-transaction.mapping.js';

export const BANK_LINK_SYNC_JOB = 'bank-link-sync';

/**
 * Per request, not per item: BullMQ keeps a finished job's id for a while, and a sync asked for
 * after one finished must run. Requests within the same second share a job; syncs of one item
 * that still overlap serialise on the item stream's revision (see `recordPage`).
 */
export const bankLinkSyncJobId = (linkItemUuid: string, now: Date) => `bank-link-sync-${linkItemUuid}-${Math.floor(now.getTime() / 1000)}`;

export interface BankLinkSyncInput {
  readonly userId: string;
  readonly linkItemId: string;
}

/** Where tests stop a sync part-way: after a page's transactions, before or after its cursor is recorded. */
export interface BankLinkSyncHooks {
  readonly afterPageApplied?: (page: SyncPage, pageNumber: number) => void | Promise<void>;
  readonly afterPage?: (page: SyncPage, pageNumber: number) => void | Promise<void>;
}

export interface BankLinkSyncDependencies {
  readonly database: DatabaseConnection;
  readonly eventStore: EventStore;
  readonly clock: Clock;
  readonly bankLink: () => Promise<BankLink>;
}

/** Changes asked of the provider per page. */
export const SYNC_PAGE_SIZE = 500;
/** Streams written at once while a page is applied. */
const CONCURRENCY = 16;

/**
 * Pages through the provider's changes from the cursor the item's events hold: each page's
 * transactions (added, then modified, then removed) on their own streams, actor `system`, then
 * `LinkItemSyncPageImported` with the page's cursor at the revision read before the page. A sync
 * stopped part-way starts again from the last recorded page; every import decision is idempotent,
 * so the page it re-reads appends nothing twice.
 */
export function bankLinkSyncJob(dependencies: BankLinkSyncDependencies, hooks: BankLinkSyncHooks = {}): JobDefinition<BankLinkSyncInput> {
  return {
    name: BANK_LINK_SYNC_JOB,
    async handle({ userId, linkItemId }) {
      const { database, eventStore, clock } = dependencies;
      const bankLink = await dependencies.bankLink();
      const linkItemUuid = linkItemUuidOf(userId, linkItemId);
      const context = (): CommandContext => ({ userId, actor: 'system', requestId: `bank-link-sync-${linkItemUuid}`, now: clock.now() });
      const credentials = await database.db.selectFrom('link_item_credentials').selectAll().where('link_item_uuid', '=', linkItemUuid).where('user_id', '=', userId).executeTakeFirst();
      if (!credentials || !bankLink.provider || credentials.provider !== bankLink.providerName) return;
      const accessToken = bankLink.sealer.open(credentials.sealed_access_token, credentials.provider, credentials.link_item_id);
      const writer = new PageWriter(eventStore, userId, linkItemId, context);
      for (let pageNumber = 1; ; pageNumber += 1) {
        const item = await readItem(eventStore, linkItemUuid, userId);
        if (item.state.status !== 'linked') return;
        let page: SyncPage;
        try {
          page = await bankLink.provider.syncTransactions({ accessToken, cursor: item.state.cursor ?? undefined, count: SYNC_PAGE_SIZE });
        } catch (error) {
          if (error instanceof BankLinkError && error.code === 'ITEM_LOGIN_REQUIRED') {
            await handleCommand(eventStore, linkItemStreamId(linkItemUuid), linkItemDecider, { type: 'RecordLoginRequired', linkItemUuid, error: { errorCode: error.code, errorMessage: error.message } }, context(), 'Link item');
            return;
          }
          throw error;
        }
        await writer.apply(page);
        await hooks.afterPageApplied?.(page, pageNumber);
        const counts = { cursor: page.nextCursor, added: page.added.length, modified: page.modified.length, removed: page.removed.length };
        if (!(await recordPage(eventStore, linkItemUuid, userId, item, counts, context()))) return;
        await hooks.afterPage?.(page, pageNumber);
        if (!page.hasMore) return;
      }
    },
  };
}

interface ItemAt {
  readonly state: LinkItemState;
  readonly revision: bigint | null;
}

async function readItem(store: EventStore, linkItemUuid: string, userId: string): Promise<ItemAt> {
  const history = await store.readStream(linkItemStreamId(linkItemUuid));
  if (history.length === 0 || history[0].metadata.userId !== userId) return { state: linkItemDecider.initialState(), revision: null };
  const state = history.reduce((folded, recorded) => linkItemDecider.evolve(folded, recorded as unknown as LinkItemEvent), linkItemDecider.initialState());
  return { state, revision: history[history.length - 1].revision };
}

/**
 * Records the page at the item's revision read before it. If the item moved meanwhile: another
 * sync recorded a page (its cursor differs) and carries on, so this one stops (false); anything
 * else (a webhook's event) is read again and the page recorded after it.
 */
async function recordPage(store: EventStore, linkItemUuid: string, userId: string, before: ItemAt, page: { cursor: string; added: number; modified: number; removed: number }, context: CommandContext): Promise<boolean> {
  let item = before;
  for (;;) {
    const events = linkItemDecider.decide({ type: 'RecordSyncPage', linkItemUuid, ...page }, item.state);
    if (events.length === 0) return true;
    try {
      const metadata = metadataFor(context);
      await store.appendToStream(linkItemStreamId(linkItemUuid), events.map((event) => ({ type: event.type, data: event.data, metadata })), item.revision ?? 'no_stream');
      return true;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      const now = await readItem(store, linkItemUuid, userId);
      if (now.state.cursor !== before.state.cursor || now.state.status !== 'linked') return false;
      item = now;
    }
  }
}

/** Applies one page's changes to the transaction streams of one user's item. */
class PageWriter {
  constructor(
    private readonly store: EventStore,
    private readonly userId: string,
    private readonly linkItemId: string,
    private readonly context: () => CommandContext,
  ) {}

  async apply(page: SyncPage): Promise<void> {
    // A posted transaction replacing a pending one of the same page comes after it.
    const replacing = page.added.filter((transaction) => transaction.pendingTransactionId !== null);
    await inParallel(page.added.filter((transaction) => transaction.pendingTransactionId === null), (transaction) => this.importAdded(transaction));
    await inParallel(replacing, (transaction) => this.importAdded(transaction));
    await inParallel(page.modified, (transaction) => this.command(importedTransactionIdOf(this.userId, this.linkItemId, transaction.transactionId), (transactionId) => ({ type: 'UpdateFromProvider', transactionId, provider: providerValuesFrom(this.userId, transaction) })));
    await inParallel(page.removed, ({ transactionId }) => this.command(importedTransactionIdOf(this.userId, this.linkItemId, transactionId), (id) => ({ type: 'RemoveImportedTransaction', transactionId: id })));
  }

  private async importAdded(transaction: ProviderTransaction): Promise<void> {
    const data = importedTransactionOf(this.userId, this.linkItemId, transaction);
    const pendingId = data.replacesTransactionId;
    const carryOver = pendingId === null ? null : carryOverOf(pendingId, await this.stateOf(pendingId));
    const events = decideImport({ type: 'ImportTransaction', data, carryOver }, initialTransactionState());
    try {
      // The expected revision refuses a second import of the same provider transaction.
      await this.append(data.transactionId, events, 'no_stream');
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
    if (pendingId !== null) await this.command(pendingId, (transactionId) => ({ type: 'RetireReplacedTransaction', transactionId, byTransactionId: data.transactionId }));
  }

  private async stateOf(transactionId: string): Promise<TransactionState> {
    const history = await this.store.readStream(transactionStreamId(transactionId));
    if (history.length === 0 || history[0].metadata.userId !== this.userId) return initialTransactionState();
    return history.reduce((state, recorded) => transactionDecider.evolve(state, recorded as unknown as TransactionEvent), initialTransactionState());
  }

  private async command(transactionId: string, command: (transactionId: string) => Parameters<typeof transactionDecider.decide>[0]): Promise<void> {
    await handleCommand(this.store, transactionStreamId(transactionId), transactionDecider, command(transactionId), this.context(), 'Transaction');
  }

  private async append(transactionId: string, events: TransactionEvent[], expected: 'no_stream'): Promise<void> {
    const metadata = metadataFor(this.context());
    await this.store.appendToStream(transactionStreamId(transactionId), events.map((event) => ({ type: event.type, data: event.data, metadata })), expected);
  }
}

async function inParallel<Item>(items: readonly Item[], work: (item: Item) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next];
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}
