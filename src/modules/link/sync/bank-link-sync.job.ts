import type { Clock } from '../../../core/clock.js';
import { foldOwnStream } from '../../../core/decider.js';
import { WrongExpectedRevisionError } from '../../../core/events.js';
import type { DatabaseConnection } from '../../../infrastructure/database/database.js';
import type { EventStore } from '../../../infrastructure/event-store/event-store.port.js';
import { type CommandContext, handleCommand, metadataFor } from '../../../infrastructure/event-store/handle-command.js';
import type { JobDefinition, JobRunner } from '../../../infrastructure/jobs/job.js';
import { type JobTrace, tracedBy } from '../../../infrastructure/jobs/job-trace.js';
import { BankLinkError, type SyncPage } from '../bank-link.port.js';
import type { BankLink } from '../bank-link.wiring.js';
import { type LinkItemState, linkItemStreamId, linkItemUuidOf, type SyncCounts } from '../link-items/link-item.js';
import { linkItemDecider } from '../link-items/link-item.decider.js';
import { refreshLinkedBalances } from './linked-balances.js';
import { SyncPageWriter } from './sync-page.writer.js';

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
  /** The request (or webhook) that asked; requests in the same second share the first one's run and trace. */
  readonly trace?: JobTrace;
}

/** Queues a sync of one user's item: linking, POST /link/items/{linkItemId}/sync, a webhook and the schedule all ask this way. */
export async function queueBankLinkSync(
  jobs: Pick<JobRunner, 'enqueue'>,
  userId: string,
  linkItemId: string,
  at: Date,
  linkItemUuid = linkItemUuidOf(userId, linkItemId),
  trace?: JobTrace,
): Promise<void> {
  const input: BankLinkSyncInput = trace ? { userId, linkItemId, trace } : { userId, linkItemId };
  await jobs.enqueue(BANK_LINK_SYNC_JOB, input, { jobId: bankLinkSyncJobId(linkItemUuid, at) });
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

/** Paging started again this often in one run at most; then the job fails and is retried later. */
export const MAX_PAGINATION_RESTARTS = 3;

/**
 * Pages through the provider's changes from the cursor the item's events hold: each page's
 * transactions (added, then modified, then removed) on their own streams, actor `system`, then
 * `LinkItemSyncPageImported` with the page's cursor at the item revision the sync last knew. A sync
 * stopped part-way starts again from the last recorded page; every import decision is idempotent,
 * so the page it re-reads appends nothing twice. Once the last page is in, the accounts' balances
 * as the provider has them now (`LinkItemBalancesRefreshed`, only when they moved). A provider
 * whose data moves while the sync pages (PAGINATION_RESTART_REQUIRED) has it page again from the
 * cursor the last complete sync ended on (`syncStartCursor`), as Plaid documents.
 */
export function bankLinkSyncJob(dependencies: BankLinkSyncDependencies, hooks: BankLinkSyncHooks = {}): JobDefinition<BankLinkSyncInput> {
  return {
    name: BANK_LINK_SYNC_JOB,
    async handle({ userId, linkItemId, trace }) {
      const { database, eventStore, clock } = dependencies;
      const bankLink = await dependencies.bankLink();
      const linkItemUuid = linkItemUuidOf(userId, linkItemId);
      const context = (): CommandContext => ({ userId, actor: 'system', requestId: `bank-link-sync-${linkItemUuid}`, ...tracedBy(trace), now: clock.now() });
      const credentials = await database.db.selectFrom('link_item_credentials').selectAll().where('link_item_uuid', '=', linkItemUuid).where('user_id', '=', userId).executeTakeFirst();
      if (!credentials || !bankLink.provider || credentials.provider !== bankLink.providerName) return;
      const accessToken = bankLink.sealer.open(credentials.sealed_access_token, credentials.provider, credentials.link_item_id);
      const provider = bankLink.provider;
      const writer = new SyncPageWriter(eventStore, userId, linkItemId, context);
      /** The provider's answer, or null once a login it requires is recorded on the item. */
      const loginRequiredRecorded = async <Answer>(ask: () => Promise<Answer>): Promise<Answer | null> => {
        try {
          return await ask();
        } catch (error) {
          if (!(error instanceof BankLinkError && error.code === 'ITEM_LOGIN_REQUIRED')) throw error;
          await handleCommand(eventStore, linkItemStreamId(linkItemUuid), linkItemDecider, { type: 'RecordLoginRequired', linkItemUuid, error: { errorCode: error.code, errorMessage: error.message } }, context(), 'Link item');
          return null;
        }
      };
      let item = await readItem(eventStore, linkItemUuid, userId);
      if (item.state.status !== 'linked') return;
      // The provider's next page is asked for and mapped while the page before it is written.
      const fetchPage = (cursor: string | null) => {
        const fetched = loginRequiredRecorded(() => provider.syncTransactions({ accessToken, cursor: cursor ?? undefined, count: SYNC_PAGE_SIZE })).then((page) => page && writer.prepare(page));
        fetched.catch(() => undefined);
        return fetched;
      };
      let next = fetchPage(item.state.cursor);
      let transactionsChanged = false;
      const totals = { added: 0, modified: 0, removed: 0 };
      let restarts = 0;
      try {
        for (let pageNumber = 1; ; pageNumber += 1) {
          let prepared;
          try {
            prepared = await next;
          } catch (error) {
            if (!(error instanceof BankLinkError && error.code === 'PAGINATION_RESTART_REQUIRED') || restarts >= MAX_PAGINATION_RESTARTS) throw error;
            // The provider's data moved under the paging: all of it again from where it began (the
            // pages applied meanwhile are applied again, which appends nothing twice).
            restarts += 1;
            Object.assign(totals, { added: 0, modified: 0, removed: 0 });
            next = fetchPage(item.state.syncStartCursor);
            continue;
          }
          if (prepared === null) return;
          const { page } = prepared;
          if (page.hasMore) next = fetchPage(page.nextCursor);
          await writer.write(prepared, new Set(item.state.disconnectedAccountIds));
          transactionsChanged ||= page.added.length + page.modified.length + page.removed.length > 0;
          await hooks.afterPageApplied?.(page, pageNumber);
          totals.added += page.added.length;
          totals.modified += page.modified.length;
          totals.removed += page.removed.length;
          const counts = { cursor: page.nextCursor, added: page.added.length, modified: page.modified.length, removed: page.removed.length, hasMore: page.hasMore, ...(page.hasMore ? {} : { syncTotals: { ...totals } }) };
          const recorded = await recordPage(eventStore, linkItemUuid, userId, item, counts, context());
          if (recorded === null) return;
          item = recorded;
          await hooks.afterPage?.(page, pageNumber);
          if (!page.hasMore) break;
        }
      } finally {
        // Nothing this sync asked for outlives it.
        await next.catch(() => undefined);
      }
      // Balances once the transactions are in, so a balance never runs ahead of the list.
      const accounts = await loginRequiredRecorded(() => provider.getAccounts(accessToken));
      if (accounts !== null) await refreshLinkedBalances({ eventStore }, { userId, linkItemId, accounts }, context());
    },
  };
}

interface ItemAt {
  readonly state: LinkItemState;
  readonly revision: bigint | null;
}

async function readItem(store: EventStore, linkItemUuid: string, userId: string): Promise<ItemAt> {
  const history = await store.readStream(linkItemStreamId(linkItemUuid));
  const state = foldOwnStream(linkItemDecider, history, userId);
  return { state, revision: state.status === 'absent' ? null : history[history.length - 1].revision };
}

/**
 * Records the page at the item's revision this sync last knew, and returns the item after it. If
 * the item moved meanwhile: another sync recorded a page (its cursor differs) and carries on, so
 * this one stops (null), as it does for an item no longer linked; anything else (a webhook's
 * event) is read again and the page recorded after it.
 */
async function recordPage(store: EventStore, linkItemUuid: string, userId: string, before: ItemAt, page: { cursor: string; added: number; modified: number; removed: number; hasMore: boolean; syncTotals?: SyncCounts }, context: CommandContext): Promise<ItemAt | null> {
  let item = before;
  for (;;) {
    const events = linkItemDecider.decide({ type: 'RecordSyncPage', linkItemUuid, ...page }, item.state);
    if (events.length === 0) return item;
    try {
      const metadata = metadataFor(context);
      const appended = await store.appendToStream(linkItemStreamId(linkItemUuid), events.map((event) => ({ type: event.type, data: event.data, metadata })), item.revision ?? 'no_stream');
      return { state: events.reduce(linkItemDecider.evolve, item.state), revision: appended.nextExpectedRevision };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      const now = await readItem(store, linkItemUuid, userId);
      if (now.state.cursor !== before.state.cursor || now.state.status !== 'linked') return null;
      item = now;
    }
  }
}
