import { randomBytes } from 'node:crypto';
import { createMigratedDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import type { DatabaseConnection } from '../../infrastructure/database/database.js';
import { EXPIRED_TOKENS_PRUNE_JOB, expiredTokensPruneJob } from './expired-tokens-prune.job.js';

let database: TestDatabase;
let connection: DatabaseConnection;

beforeAll(async () => {
  ({ database, connection } = await createMigratedDatabase());
});
afterAll(async () => {
  await connection.close();
  await database.drop();
});

const now = new Date('2026-11-23T10:00:00.000Z');
const minutes = (count: number) => new Date(now.getTime() + count * 60_000);

/** Rows of every table the job prunes, each named by when it stops being of use (minutes from now). */
async function seed(label: string, expiries: number[]): Promise<void> {
  const db = connection.db;
  for (const [index, minute] of expiries.entries()) {
    const at = minutes(minute);
    const token_hash = randomBytes(32);
    await db.insertInto('sandbox_bank_link_tokens').values({ token_hash, user_id: label, reconnect_item_id: null, created_at: minutes(minute - 240), expires_at: at }).execute();
    await db
      .insertInto('sandbox_bank_public_tokens')
      .values({ token_hash, user_id: label, institution_id: 'ins_100001', item_seed: '7', as_of: '2026-11-23', created_at: minutes(minute - 30), expires_at: at, used_at: index % 2 === 0 ? null : minutes(minute - 1), transaction_count: null, horizon_days: null, reconnect_item_id: null })
      .execute();
    await db
      .insertInto('sandbox_brokerage_portal_sessions')
      .values({ token_hash, user_id: label, reconnect_authorization_id: null, created_at: minutes(minute - 5), expires_at: at, used_at: null, authorization_id: null })
      .execute();
    // A webhook id is of use for 15 minutes after it was received.
    await db
      .insertInto('bank_link_webhooks_received')
      .values({ provider: 'sandbox', webhook_id: `${label}-${index}`, code: 'LOGIN_REPAIRED', link_item_id: 'item-1', outcome: 'applied', received_at: minutes(minute - 15) })
      .execute();
  }
}

async function remaining(): Promise<Record<string, string[]>> {
  const db = connection.db;
  const labels = (rows: Array<{ label: string | null }>) => rows.map((row) => row.label ?? '?').sort();
  return {
    linkTokens: labels(await db.selectFrom('sandbox_bank_link_tokens').select('user_id as label').execute()),
    publicTokens: labels(await db.selectFrom('sandbox_bank_public_tokens').select('user_id as label').execute()),
    portalSessions: labels(await db.selectFrom('sandbox_brokerage_portal_sessions').select('user_id as label').execute()),
    webhooks: labels((await db.selectFrom('bank_link_webhooks_received').select('webhook_id').execute()).map((row) => ({ label: row.webhook_id.split('-')[0] ?? null }))),
  };
}

describe('pruning expired tokens and received-webhook ids', () => {
  it('runs every 15 minutes and deletes, in batches, every row past its use, leaving the live ones; a second run deletes nothing', async () => {
    // Seven expired rows per table (two batches and a bit), one just expired, and live ones.
    await seed('expired', [-600, -240, -31, -30, -5, -2, -1]);
    await seed('boundary', [0]);
    await seed('live', [1, 5, 240]);
    const job = expiredTokensPruneJob({ database: connection, clock: { now: () => now }, batchSize: 3 });
    expect(job).toMatchObject({ name: EXPIRED_TOKENS_PRUNE_JOB, schedule: { everyMinutes: 15, input: {} } });

    await job.handle({});
    const live = ['boundary', 'live', 'live', 'live'];
    expect(await remaining()).toEqual({ linkTokens: live, publicTokens: live, portalSessions: live, webhooks: live });
    await job.handle({});
    expect(await remaining()).toEqual({ linkTokens: live, publicTokens: live, portalSessions: live, webhooks: live });

    // Time moves on: what was live expires and goes in its turn.
    await expiredTokensPruneJob({ database: connection, clock: { now: () => minutes(6) } }).handle({});
    expect(await remaining()).toEqual({ linkTokens: ['live'], publicTokens: ['live'], portalSessions: ['live'], webhooks: ['live'] });
  });

  it('lets runs on several instances overlap: each expired row goes once, none is left, none waits for the other', async () => {
    await connection.db.deleteFrom('sandbox_bank_link_tokens').execute();
    await seed('overlap', Array.from({ length: 40 }, (_, index) => -1 - index));
    const run = () => expiredTokensPruneJob({ database: connection, clock: { now: () => now }, batchSize: 4 }).handle({});
    await Promise.all([run(), run(), run()]);
    const left = await remaining();
    for (const rows of Object.values(left)) expect(rows.filter((label) => label === 'overlap')).toEqual([]);
  });
});
