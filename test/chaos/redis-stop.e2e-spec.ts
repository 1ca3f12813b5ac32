import type { PrivateRedis } from '../../src/infrastructure/jobs/private-redis.test-support.js';
import { carryingTag, chaosRuns, chaosUser, printSummary, seconds, sleep, spread, tagOnTransactions } from '../support/chaos/chaos-fixture.js';
import { type ChaosStage, startChaosStage } from '../support/chaos/chaos-stage.js';
import { lastCommittedPosition, waitCaughtUp } from '../support/chaos/read-models.js';
import { checkReadModels, readModelLines } from '../support/chaos/rebuild-check.js';
import { failedOutright, type Outcome, statusCounts, WriteLoad } from '../support/chaos/write-load.js';

/**
 * The built service (on a private PostgreSQL) with BullMQ on a redis-server of the test's own, killed under write load for
 * a few seconds and started again (empty, as after a crash without persistence), OUTAGES times.
 * The API keeps accepting reads and writes meanwhile; a tag deleted during the outage is taken
 * off its transactions by the fan-out job once Redis is back. test/redis-outage.e2e-spec.ts covers
 * the in-process app (rate limit, Redis down at boot); this is the built service under load.
 */
const OUTAGES = chaosRuns(1, 0.15);
const OUTAGE_MS = 4000;
const TAGGED = 4;

let stage: ChaosStage | null = null;

beforeAll(async () => {
  stage = await startChaosStage({ redis: true });
}, 120_000);

afterAll(() => stage?.stop(), 60_000);

interface Outage {
  readonly during: readonly Outcome[];
  readonly reads: { ok: number; lagging: number; failed: number };
  readonly deleteStatus: number;
  /** Transactions still carrying the deleted tag when Redis came back: the fan-out had waited for it. */
  readonly heldTagged: number;
  readonly fanOutMs: number;
}

describe('Redis stopped under load', () => {
  it(`the API keeps serving reads and writes, and a job queued during the outage runs once Redis is back, over ${OUTAGES} outages`, async () => {
    const chaos = stage as ChaosStage;
    const { services: [app], view } = chaos;
    const server = chaos.redis as PrivateRedis;
    const { db } = view;
    try {
      const user = await chaosUser(db, app.baseUrl);
      const carrying = (tagId: string) => carryingTag(db, tagId);
      const writes = new WriteLoad({ ...user, ratePerSecond: 20, workers: 4, targets: () => [app.baseUrl], requestTimeoutMs: 30_000 });
      chaos.load = writes;
      writes.phase = 'before';
      writes.start();
      const outages: Outage[] = [];
      for (let outage = 0; outage < OUTAGES; outage += 1) {
        // A tag on a few transactions of its own, outside the load's ledger, for the fan-out to take off.
        const tagId = await tagOnTransactions(app.baseUrl, user, `fan-out ${outage}`, TAGGED);
        await sleep(1500);
        await server.stop();
        writes.phase = `during ${outage}`;
        const reads = { ok: 0, lagging: 0, failed: 0 };
        const reading = (async () => {
          for (const until = performance.now() + OUTAGE_MS; performance.now() < until; await sleep(100)) {
            const response = await fetch(`${app.baseUrl}/v1/transactions?limit=50`, { headers: { Authorization: `Bearer ${user.key}` }, signal: AbortSignal.timeout(30_000) }).catch(() => null);
            if (response?.ok) reads.ok += 1;
            else if (response?.status === 503 && ((await response.json().catch(() => null)) as { code?: string } | null)?.code === 'READ_MODEL_LAGGING') reads.lagging += 1;
            else reads.failed += 1;
          }
        })();
        await sleep(500);
        const deleted = await fetch(`${app.baseUrl}/v1/tags/${tagId}`, { method: 'DELETE', headers: { Authorization: `Bearer ${user.key}` }, signal: AbortSignal.timeout(30_000) });
        await reading;
        const heldTagged = await carrying(tagId);
        await server.start();
        const upAt = performance.now();
        writes.phase = `after ${outage}`;
        while ((await carrying(tagId)) > 0) {
          if (performance.now() - upAt > 60_000) throw new Error(`the tag deleted during outage ${outage + 1} was still on transactions 60 s after Redis returned`);
          await sleep(50);
        }
        outages.push({ during: writes.outcomes.filter((sent) => sent.phase === `during ${outage}`), reads, deleteStatus: deleted.status, heldTagged, fanOutMs: performance.now() - upAt });
      }
      await sleep(1500);
      await writes.stop();
      const settleMs = await waitCaughtUp(db, await lastCommittedPosition(db));
      const ledger = await writes.ledger.check(app.baseUrl, user.key);
      const models = await checkReadModels(view);
      const during = outages.flatMap((outage) => outage.during);
      const notAccepted = during.filter((sent) => typeof sent.status !== 'number' || sent.status >= 300).length;
      const failedDuring = during.filter(failedOutright).length;
      const reads = outages.reduce(
        (sum, outage) => ({ ok: sum.ok + outage.reads.ok, lagging: sum.lagging + outage.reads.lagging, failed: sum.failed + outage.reads.failed }),
        { ok: 0, lagging: 0, failed: 0 },
      );

      printSummary(
        `Redis stopped under load (private redis-server killed, ${seconds(OUTAGE_MS)} down, started again empty)`,
        [
          ['runs (outages)', OUTAGES],
          ['writes attempted', writes.ledger.attempted],
          ['writes accepted (2xx)', writes.ledger.accepted],
          ['writes during the outages: answers', statusCounts(during)],
          ['write error rate during the outages', `${notAccepted}/${during.length} (${((100 * notAccepted) / Math.max(1, during.length)).toFixed(1)} %), of which failed outright (not a saved-but-lagging 503): ${failedDuring}`],
          ['reads during the outages (GET /v1/transactions)', `${reads.ok} ok, ${reads.lagging} 503 lagging, ${reads.failed} failed`],
          ['writes lost (accepted, missing after recovery)', ledger.lost.length],
          ['transactions checked / activity logs checked', `${ledger.transactionsChecked} / ${ledger.activityChecked}`],
          ['DELETE /v1/tags during the outage answered', outages.map((outage) => outage.deleteStatus).join(', ')],
          ['transactions still carrying the deleted tag when Redis returned', outages.map((outage) => `${outage.heldTagged}/${TAGGED}`).join(', ')],
          [`recover: Redis up -> fan-out job took the tag off ${TAGGED} transactions`, spread(outages.map((outage) => outage.fanOutMs))],
          ['settle after the load stopped', seconds(settleMs)],
        ],
        ['  read models against a fresh rebuild:', ...readModelLines(models)],
      );
      expect(ledger.lost).toEqual([]);
      expect(models.filter((model) => !model.agree || !model.appliedOnce)).toEqual([]);
      expect(failedDuring).toBe(0);
      expect(reads.failed).toBe(0);
      expect(outages.map((outage) => outage.deleteStatus)).toEqual(outages.map(() => 204));
    } catch (error) {
      console.log(`service log (last lines):\n${app.logTail()}`);
      throw error;
    }
  }, 120_000 + OUTAGES * 60_000);
});
