import { type Kysely, sql } from 'kysely';
import { transactionActivityProjection } from '../../../../projections/transaction-activity/transaction-activity.projection.js';
import { transactionsProjection } from '../../../../projections/transactions/transactions.projection.js';
import { foldOwnStream } from '../../../core/decider.js';
import { comparePositions, formatPosition, type GlobalPosition, type RecordedEvent } from '../../../core/events.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import type { EventStore } from '../../../infrastructure/event-store/event-store.port.js';
import type { ProjectionDefinition } from '../../../infrastructure/projections/projection.js';
import { accountStreamId } from '../../accounts/account.js';
import { departingAccountIds } from '../../accounts/account-departures.js';
import { linkItemStreamId, linkItemUuidOf } from '../../link/link-items/link-item.js';
import type { TransactionImported } from '../imported-transaction.js';
import { type TransactionState, transactionStreamId } from '../transaction.js';
import { transactionDecider } from '../transaction.decider.js';
import { auditNamesOf, nameAudit, type NamedTransactionAudit } from './transaction-audit.names.js';
import { auditTransaction, type ReadModelView } from './transaction-audit.report.js';

export interface TransactionAuditDependencies {
  readonly db: Kysely<Database>;
  /** The upcasting store, as the service reads it. */
  readonly store: EventStore;
}

export interface LaggingProjection {
  readonly name: string;
  readonly version: number;
  readonly position: string;
}

export type TransactionAuditOutcome =
  | { readonly kind: 'unknown'; readonly transactionId: string }
  | { readonly kind: 'lagging'; readonly transactionId: string; readonly streamPosition: string; readonly lagging: readonly LaggingProjection[] }
  | { readonly kind: 'audited'; readonly audit: NamedTransactionAudit };

/** The read models the audit compares; their versions are this release's. */
const AUDITED_PROJECTIONS: readonly Pick<ProjectionDefinition, 'name' | 'version'>[] = [transactionsProjection, transactionActivityProjection];

/** Time for the read models to reach the stream, and for another writer to stop moving it. */
const DEFAULT_WAIT_MS = 5_000;
const POLL_MS = 100;
const ATTEMPTS = 3;

/**
 * Reads the transaction's own stream, folds it, and compares it with the `transactions` row and the
 * `transaction_activity` rows — once both read models have applied every event the comparison
 * rests on (the stream's and an account's departure). A stream that grows while the read models
 * are read is read again, so a concurrent write is not reported as a disagreement.
 */
export async function auditTransactionAgainstReadModels(dependencies: TransactionAuditDependencies, transactionId: string, waitMs = DEFAULT_WAIT_MS): Promise<TransactionAuditOutcome> {
  const { db, store } = dependencies;
  for (let attempt = 1; ; attempt += 1) {
    const history = await store.readStream(transactionStreamId(transactionId));
    if (history.length === 0) return { kind: 'unknown', transactionId };
    const userId = history[0].metadata.userId;
    const state = foldOwnStream(transactionDecider, history, userId);
    const departure = await accountDeparture(store, history, state);
    const needed = [history[history.length - 1].position, ...(departure ? [departure] : [])].reduce((a, b) => (comparePositions(a, b) >= 0 ? a : b));
    const lagging = await waitForReadModels(db, needed, waitMs);
    if (lagging.length > 0) return { kind: 'lagging', transactionId, streamPosition: formatPosition(needed), lagging };
    const readModel = await readModelOf(db, transactionId);
    const after = await store.readStream(transactionStreamId(transactionId), { fromRevision: history[history.length - 1].revision + 1n });
    if (after.length === 0 || attempt >= ATTEMPTS) {
      const audit = auditTransaction(history, state, departure !== null, readModel);
      return { kind: 'audited', audit: nameAudit(audit, await auditNamesOf(db, audit)) };
    }
  }
}

/**
 * A live transaction leaves the list with its account: the position of the account's deletion (or
 * its disconnection, alone or with its link item), null while the account stays.
 */
async function accountDeparture(store: EventStore, history: readonly RecordedEvent[], state: TransactionState): Promise<GlobalPosition | null> {
  if (state.status !== 'live' || !state.accountId) return null;
  const accountId = state.accountId;
  const deleted = (await store.readStream(accountStreamId(accountId))).find((recorded) => recorded.type === 'AccountDeleted');
  if (deleted) return deleted.position;
  if (history[0].type !== 'TransactionImported') return null;
  const { linkItemId } = (history[0] as RecordedEvent<TransactionImported>).data;
  const item = await store.readStream(linkItemStreamId(linkItemUuidOf(history[0].metadata.userId, linkItemId)));
  // The account disconnected on its own, or with its whole item: whichever came first.
  const disconnected = item.find((recorded) => departingAccountIds(recorded)?.includes(accountId));
  return disconnected?.position ?? null;
}

/** The audited projections still behind `position` once `waitMs` has passed (none: all there). */
async function waitForReadModels(db: Kysely<Database>, position: GlobalPosition, waitMs: number): Promise<LaggingProjection[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const checkpoints = await readCheckpoints(db);
    const lagging = AUDITED_PROJECTIONS.flatMap((projection) => {
      const at = checkpoints.get(`${projection.name} ${projection.version}`);
      return at && comparePositions(at, position) >= 0 ? [] : [{ name: projection.name, version: projection.version, position: at ? formatPosition(at) : 'none' }];
    });
    if (lagging.length === 0 || Date.now() >= deadline) return lagging;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function readCheckpoints(db: Kysely<Database>): Promise<Map<string, GlobalPosition>> {
  const { rows } = await sql<{ name: string; version: number; position_commit: string; position_prepare: string }>`
    SELECT name, version, position_commit::text, position_prepare::text FROM projection_versions
     WHERE name IN (${sql.join(AUDITED_PROJECTIONS.map((projection) => projection.name))})`.execute(db);
  return new Map(rows.map((row) => [`${row.name} ${row.version}`, { commit: BigInt(row.position_commit), prepare: BigInt(row.position_prepare) }]));
}

async function readModelOf(db: Kysely<Database>, transactionId: string): Promise<ReadModelView> {
  const row = await db.selectFrom('transactions').selectAll().where('id', '=', transactionId).executeTakeFirst();
  const activity = await db
    .selectFrom('transaction_activity')
    .select(['id', 'kind', 'actor', 'created_at', 'field', 'old_value', 'new_value', 'request_id', 'correlation_id', 'rule_id', 'revision', 'ordinal'])
    .where('transaction_id', '=', transactionId)
    .orderBy('revision')
    .orderBy('ordinal')
    .execute();
  return { row: row ?? null, activity };
}
