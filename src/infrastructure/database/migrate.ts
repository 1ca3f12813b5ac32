import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import { type ProjectionDefinition, projectionSchema } from '../projections/projection.js';
import * as eventStore from './migrations/0001-event-store.js';
import * as checkpoints from './migrations/0002-projection-checkpoints.js';
import * as identity from './migrations/0003-identity.js';
import * as sessions from './migrations/0004-sessions.js';
import * as projectionVersions from './migrations/0005-projection-versions.js';
import * as parkedEvents from './migrations/0006-parked-events.js';
import * as projectionLeases from './migrations/0007-projection-leases.js';
import * as signInBrowserBinding from './migrations/0008-sign-in-browser-binding.js';
import * as bankLink from './migrations/0009-bank-link.js';
import * as bankLinkWebhooks from './migrations/0010-bank-link-webhooks.js';
import * as sandboxBankItemSize from './migrations/0011-sandbox-bank-item-size.js';
import * as sandboxBankReconnect from './migrations/0012-sandbox-bank-reconnect.js';
import * as brokerageLink from './migrations/0013-brokerage-link.js';
import * as projectionRebuilds from './migrations/0014-projection-rebuilds.js';
import * as apiKeyInvalidation from './migrations/0015-api-key-invalidation.js';
import * as apiKeyInvalidationXid from './migrations/0016-api-key-invalidation-xid.js';
import * as sandboxBankTokenOwners from './migrations/0020-sandbox-bank-token-owners.js';
import * as expiryIndexes from './migrations/0021-expiry-indexes.js';
import * as leaseHolderConnection from './migrations/0024-lease-holder-connection.js';
import * as inlineProjections from './migrations/0025-inline-projections.js';
import * as pgcrypto from './migrations/0026-pgcrypto.js';
import * as jobOutbox from './migrations/0028-job-outbox.js';
import * as webhooks from './migrations/0029-webhooks.js';
import * as idempotencyKeys from './migrations/0030-idempotency-keys.js';
import * as statementImports from './migrations/0031-statement-imports.js';
import * as rules from './migrations/0032-rules.js';
import * as eventChain from './migrations/0034-event-chain.js';
import * as eventsByUser from './migrations/0035-events-by-user.js';
import * as brokeragePortalReturns from './migrations/0036-brokerage-portal-returns.js';
import * as chainFollows from './migrations/0037-chain-follows.js';
import type { Database } from './schema.js';

const CORE_MIGRATIONS: Record<string, Migration> = {
  '0001-event-store': eventStore,
  '0002-projection-checkpoints': checkpoints,
  '0003-identity': identity,
  '0004-sessions': sessions,
  '0005-projection-versions': projectionVersions,
  '0006-parked-events': parkedEvents,
  '0007-projection-leases': projectionLeases,
  '0008-sign-in-browser-binding': signInBrowserBinding,
  '0009-bank-link': bankLink,
  '0010-bank-link-webhooks': bankLinkWebhooks,
  '0011-sandbox-bank-item-size': sandboxBankItemSize,
  '0012-sandbox-bank-reconnect': sandboxBankReconnect,
  '0013-brokerage-link': brokerageLink,
  '0014-projection-rebuilds': projectionRebuilds,
  '0015-api-key-invalidation': apiKeyInvalidation,
  '0016-api-key-invalidation-xid': apiKeyInvalidationXid,
  '0020-sandbox-bank-token-owners': sandboxBankTokenOwners,
  '0021-expiry-indexes': expiryIndexes,
  '0024-lease-holder-connection': leaseHolderConnection,
  '0025-inline-projections': inlineProjections,
  '0026-pgcrypto': pgcrypto,
  '0028-job-outbox': jobOutbox,
  '0029-webhooks': webhooks,
  '0030-idempotency-keys': idempotencyKeys,
  '0031-statement-imports': statementImports,
  '0032-rules': rules,
  '0034-event-chain': eventChain,
  '0035-events-by-user': eventsByUser,
  '0036-brokerage-portal-returns': brokeragePortalReturns,
  '0037-chain-follows': chainFollows,
};

/** Any number of processes may start at once: the advisory lock lets one set up at a time. */
const SETUP_LOCK = 7_303_001;

export interface ProjectionSetup {
  readonly name: string;
  readonly version: number;
  /** `created`: a new version, empty, to be built from `$all`; `current`: already there. */
  readonly action: 'created' | 'current';
}

/**
 * Core migrations, then one schema per projection version that does not exist yet. Nothing is
 * ever dropped here: an older release may still serve an older version (docs/decisions/0007).
 */
export async function migrate(db: Kysely<Database>, projections: readonly ProjectionDefinition[]): Promise<ProjectionSetup[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => CORE_MIGRATIONS }, allowUnorderedMigrations: true });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${SETUP_LOCK})`.execute(trx);
    const setups: ProjectionSetup[] = [];
    for (const projection of projections) setups.push(await prepareProjection(trx, projection));
    return setups;
  });
}

/** Names of core migrations not yet applied: commands that only read refuse to run on an unmigrated database. */
export async function pendingMigrations(db: Kysely<Database>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => CORE_MIGRATIONS }, allowUnorderedMigrations: true });
  return (await migrator.getMigrations()).filter((migration) => migration.executedAt === undefined).map((migration) => migration.name);
}

async function prepareProjection(trx: Kysely<Database>, projection: ProjectionDefinition): Promise<ProjectionSetup> {
  const { name, version } = projection;
  const existing = await trx.selectFrom('projection_versions').select('version').where('name', '=', name).where('version', '=', version).executeTakeFirst();
  if (existing) return { name, version, action: 'current' };
  // A reaction has no tables: its checkpoint row is all it needs (the daemon starts it at the head).
  if (projection.kind !== 'reaction') {
    const schema = projectionSchema(projection);
    await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(trx);
    await sql`SELECT set_config('search_path', ${`${schema}, public`}, true)`.execute(trx);
    await projection.createTables(trx as Kysely<unknown>);
  }
  await trx.insertInto('projection_versions').values({ name, version }).execute();
  return { name, version, action: 'created' };
}
