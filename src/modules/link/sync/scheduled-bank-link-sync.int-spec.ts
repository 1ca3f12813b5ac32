import { randomUUID } from 'node:crypto';
import { createMigratedDatabase, type TestDatabase } from '../../../../test/support/test-database.js';
import type { DatabaseConnection } from '../../../infrastructure/database/database.js';
import type { EnqueueOptions, JobQueue } from '../../../infrastructure/jobs/job.js';
import type { BankLinkProvider } from '../bank-link.port.js';
import type { BankLink } from '../bank-link.wiring.js';
import type { AccessTokenSealer } from '../provider/access-token-sealer.js';
import { BANK_LINK_SYNC_JOB, bankLinkSyncJobId } from './bank-link-sync.job.js';
import { BANK_LINK_SCHEDULED_SYNC_JOB, SCHEDULED_SYNC_BATCH, scheduledBankLinkSyncJob } from './scheduled-bank-link-sync.job.js';

let database: TestDatabase;
let connection: DatabaseConnection;

/** Two and a half batches of the sandbox's items, and a few of a provider no longer configured. */
const SANDBOX_ITEMS = SCHEDULED_SYNC_BATCH * 2 + SCHEDULED_SYNC_BATCH / 2;
const items: Array<{ link_item_uuid: string; user_id: string; provider: string; link_item_id: string }> = [];

beforeAll(async () => {
  ({ database, connection } = await createMigratedDatabase());
  for (let i = 0; i < SANDBOX_ITEMS + 3; i += 1) items.push({ link_item_uuid: randomUUID(), user_id: randomUUID(), provider: i < SANDBOX_ITEMS ? 'sandbox' : 'retired', link_item_id: `item-${i}` });
  await connection.db
    .insertInto('link_item_credentials')
    .values(items.map((item) => ({ ...item, sealed_access_token: Buffer.from('sealed'), created_at: new Date() })))
    .execute();
});
afterAll(async () => {
  await connection.close();
  await database.drop();
});

/** A queue that keeps one job per id, as both runners do while a job waits. */
function recordingQueue() {
  const queued = new Map<string, { name: string; input: unknown }>();
  let calls = 0;
  const queue: JobQueue = {
    async enqueue<Input>(name: string, input: Input, { jobId }: EnqueueOptions) {
      calls += 1;
      if (!queued.has(jobId)) queued.set(jobId, { name, input });
    },
  };
  return { queue, queued, calls: () => calls };
}

const bankLink = (providerName: string, configured: boolean): (() => Promise<BankLink>) => async () => ({
  providerName,
  provider: configured ? ({} as BankLinkProvider) : null,
  sandbox: null,
  sealer: {} as AccessTokenSealer,
});

describe('the scheduled bank-link sync', () => {
  let now = new Date('2026-11-23T10:17:42.000Z');
  const clock = { now: () => now };

  it("queues one bank-link-sync per item of the configured provider, as POST /link/items/{id}/sync does, with the interval's start in the job id", async () => {
    const job = scheduledBankLinkSyncJob({ database: connection, clock, bankLink: bankLink('sandbox', true), everyMinutes: 15 });
    expect(job).toMatchObject({ name: BANK_LINK_SCHEDULED_SYNC_JOB, schedule: { everyMinutes: 15, input: {} } });
    const { queue, queued } = recordingQueue();
    await job.handle({}, queue);

    const intervalStart = new Date('2026-11-23T10:15:00.000Z');
    const expected = items
      .filter((item) => item.provider === 'sandbox')
      .map((item) => [bankLinkSyncJobId(item.link_item_uuid, intervalStart), { name: BANK_LINK_SYNC_JOB, input: { userId: item.user_id, linkItemId: item.link_item_id } }] as const);
    expect(queued.size).toBe(SANDBOX_ITEMS);
    expect(new Map(expected)).toEqual(queued);
  });

  it('queues nothing new when run again in the same interval (a retry), and the next interval queues each item again', async () => {
    const job = scheduledBankLinkSyncJob({ database: connection, clock, bankLink: bankLink('sandbox', true), everyMinutes: 15 });
    const { queue, queued, calls } = recordingQueue();
    now = new Date('2026-11-23T10:20:00.000Z');
    await job.handle({}, queue);
    now = new Date('2026-11-23T10:29:59.999Z');
    await job.handle({}, queue);
    expect({ calls: calls(), queued: queued.size }).toEqual({ calls: 2 * SANDBOX_ITEMS, queued: SANDBOX_ITEMS });
    now = new Date('2026-11-23T10:30:00.000Z');
    await job.handle({}, queue);
    expect(queued.size).toBe(2 * SANDBOX_ITEMS);
  });

  it('has no schedule at an interval of 0, and queues nothing while no provider is configured', async () => {
    expect(scheduledBankLinkSyncJob({ database: connection, clock, bankLink: bankLink('sandbox', true), everyMinutes: 0 }).schedule).toBeUndefined();
    const { queue, calls } = recordingQueue();
    await scheduledBankLinkSyncJob({ database: connection, clock, bankLink: bankLink('none', false), everyMinutes: 60 }).handle({}, queue);
    expect(calls()).toBe(0);
  });
});
