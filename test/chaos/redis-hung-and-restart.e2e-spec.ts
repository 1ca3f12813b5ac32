import { sql } from 'kysely';
import type { PrivateRedis } from '../../src/infrastructure/jobs/private-redis.test-support.js';
import { carryingTag, type ChaosUser, chaosRuns, chaosUser, post, printSummary, seconds, sleep, spread, tagOnTransactions } from '../support/chaos/chaos-fixture.js';
import { type ChaosStage, startChaosStage } from '../support/chaos/chaos-stage.js';
import { lastCommittedPosition, waitCaughtUp } from '../support/chaos/read-models.js';
import { checkReadModels, readModelLines } from '../support/chaos/rebuild-check.js';
import { failedOutright, statusCounts, WriteLoad } from '../support/chaos/write-load.js';

/**
 * BullMQ's Redis hung (SIGSTOP: connections open, nothing answered) under write load, and Redis
 * down across service restarts: a SIGTERM and a kill -9 with first syncs asked for and not yet
 * handed to BullMQ. Jobs live in the PostgreSQL outbox (decision 0038), so an outage or a restart
 * delays them and never drops them; test/chaos/redis-stop.e2e-spec.ts kills Redis under load.
 */
const HANGS = chaosRuns(1, 0.15);
const HANG_MS = 4000;
const TAGGED = 4;

let stage: ChaosStage | null = null;

beforeAll(async () => {
  stage = await startChaosStage({ redis: true });
}, 120_000);

afterAll(() => stage?.stop(), 60_000);

async function until(what: string, check: () => Promise<boolean>, withinMs = 60_000): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > withinMs) throw new Error(`${what}: not within ${seconds(withinMs)}`);
    await sleep(50);
  }
  return performance.now() - started;
}

async function linkItem(baseUrl: string, user: ChaosUser): Promise<string> {
  const { publicToken } = await post(baseUrl, user.key, '/v1/sandbox/public-token', { institutionId: 'ins_100002' });
  return String((await post(baseUrl, user.key, '/v1/link/items', { publicToken })).linkItemId);
}

describe('Redis hung, and Redis down across restarts', () => {
  it(`a hung Redis costs no write and no job, over ${HANGS} hangs`, async () => {
    const chaos = stage as ChaosStage;
    const { services: [app], view } = chaos;
    const redis = chaos.redis as PrivateRedis;
    const { db } = view;
    try {
      const user = await chaosUser(db, app.baseUrl);
      const carrying = (tagId: string) => carryingTag(db, tagId);
      const writes = new WriteLoad({ ...user, ratePerSecond: 20, workers: 4, targets: () => [app.baseUrl], requestTimeoutMs: 30_000 });
      chaos.load = writes;
      writes.phase = 'before';
      writes.start();
      const hangs: Array<{ deleteStatus: number; fanOutMs: number }> = [];
      for (let hang = 0; hang < HANGS; hang += 1) {
        const tagId = await tagOnTransactions(app.baseUrl, user, `hung ${hang}`, TAGGED);
        await sleep(1000);
        redis.freeze();
        writes.phase = `during ${hang}`;
        await sleep(500);
        const deleted = await fetch(`${app.baseUrl}/v1/tags/${tagId}`, { method: 'DELETE', headers: { Authorization: `Bearer ${user.key}` }, signal: AbortSignal.timeout(30_000) });
        await sleep(HANG_MS - 500);
        redis.thaw();
        writes.phase = `after ${hang}`;
        const fanOutMs = await until(`the tag deleted during hang ${hang + 1} leaving its transactions`, async () => (await carrying(tagId)) === 0);
        hangs.push({ deleteStatus: deleted.status, fanOutMs });
      }
      await sleep(1000);
      await writes.stop();
      const settleMs = await waitCaughtUp(db, await lastCommittedPosition(db));
      const ledger = await writes.ledger.check(app.baseUrl, user.key);
      const models = await checkReadModels(view);
      const during = writes.outcomes.filter((sent) => sent.phase.startsWith('during'));
      printSummary(
        `Redis hung under load (SIGSTOP for ${seconds(HANG_MS)}, then SIGCONT)`,
        [
          ['runs (hangs)', HANGS],
          ['writes attempted / accepted (2xx)', `${writes.ledger.attempted} / ${writes.ledger.accepted}`],
          ['writes during the hangs: answers', statusCounts(during)],
          ['writes lost (accepted, missing after recovery)', ledger.lost.length],
          ['DELETE /v1/tags during the hang answered', hangs.map((hang) => hang.deleteStatus).join(', ')],
          [`Redis thawed -> fan-out took the tag off ${TAGGED} transactions`, spread(hangs.map((hang) => hang.fanOutMs))],
          ['settle after the load stopped', seconds(settleMs)],
        ],
        ['  read models against a fresh rebuild:', ...readModelLines(models)],
      );
      expect(ledger.lost).toEqual([]);
      expect(during.filter(failedOutright)).toEqual([]);
      expect(models.filter((model) => !model.agree || !model.appliedOnce)).toEqual([]);
      expect(hangs.map((hang) => hang.deleteStatus)).toEqual(hangs.map(() => 204));
    } catch (error) {
      console.log(`service log (last lines):\n${app.logTail()}`);
      throw error;
    }
  }, 120_000 + HANGS * 60_000);

  it('first syncs asked for while Redis is down survive a SIGTERM and a kill -9, and run once Redis is back', async () => {
    const chaos = stage as ChaosStage;
    const { services: [app], view } = chaos;
    const redis = chaos.redis as PrivateRedis;
    const { db } = view;
    const syncedAccounts = async (linkItemId: string) =>
      (
        await sql<{ count: number }>`SELECT count(DISTINCT t.account_id)::int AS count FROM transactions t JOIN accounts a ON a.id = t.account_id WHERE a.link_item_id = ${linkItemId}`.execute(db)
      ).rows[0].count;
    try {
      const user = await chaosUser(db, app.baseUrl, 0);
      await redis.stop();
      const beforeTerm = await linkItem(app.baseUrl, user);
      const stopMs = await app.terminate();
      await app.start();
      const beforeKill = await linkItem(app.baseUrl, user);
      const outboxBeforeKill = (await sql<{ count: number }>`SELECT count(*)::int AS count FROM job_outbox`.execute(db)).rows[0].count;
      await app.kill9();
      await redis.start();
      const restartMs = await app.start();
      const syncMs = await until('both items syncing after the restart with Redis up', async () => (await syncedAccounts(beforeTerm)) > 0 && (await syncedAccounts(beforeKill)) > 0);
      printSummary('Redis down across a SIGTERM and a kill -9 (first syncs asked for during the outage)', [
        ['SIGTERM with Redis down: service exited after', seconds(stopMs)],
        ['jobs in the outbox at the kill -9', outboxBeforeKill],
        ['restart (Redis up) -> healthy', seconds(restartMs)],
        ['healthy -> both items have synced transactions', seconds(syncMs)],
      ]);
      expect(stopMs).toBeLessThan(5000);
      expect(outboxBeforeKill).toBeGreaterThanOrEqual(2);
    } catch (error) {
      console.log(`service log (last lines):\n${app.logTail()}`);
      throw error;
    }
  }, 180_000);
});
