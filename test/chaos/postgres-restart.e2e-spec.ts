import { chaosRuns, chaosUser, printSummary, seconds, sleep, spread } from '../support/chaos/chaos-fixture.js';
import { type ChaosStage, startChaosStage } from '../support/chaos/chaos-stage.js';
import { lastCommittedPosition, waitCaughtUp } from '../support/chaos/read-models.js';
import { checkReadModels, readModelLines } from '../support/chaos/rebuild-check.js';
import { type Outcome, statusCounts, WriteLoad } from '../support/chaos/write-load.js';

/**
 * The built service on a PostgreSQL of the test's own, which is shut down (immediate: no
 * checkpoint, crash recovery on start) for a few seconds under write load and started again,
 * OUTAGES times. The service is never restarted: it must answer during the outage (an error with
 * a body, not a hang) and accept writes again once PostgreSQL is back, losing none it accepted.
 */
const OUTAGES = chaosRuns(1, 0.25);
const OUTAGE_MS = 4000;
/**
 * Shorter than the outage: a write whose read-your-writes wait began just before PostgreSQL went
 * away (its read models cannot move while it is down) answers 503 within the outage, and its
 * worker sends the next write while PostgreSQL is still down. With the default 5 s, all four
 * workers could sit out the whole outage in such waits, and no write would test it.
 */
const READ_YOUR_WRITES_TIMEOUT_MS = 1500;

let stage: ChaosStage | null = null;

beforeAll(async () => {
  stage = await startChaosStage({ env: { READ_YOUR_WRITES_TIMEOUT_MS: String(READ_YOUR_WRITES_TIMEOUT_MS) } });
}, 120_000);

afterAll(() => stage?.stop(), 60_000);

interface Outage {
  readonly firstWriteMs: number;
  readonly caughtUpMs: number;
  readonly during: readonly Outcome[];
}

describe('PostgreSQL restarted under load', () => {
  it(`the service recovers by itself, without a restart, and loses no accepted write, over ${OUTAGES} outages`, async () => {
    const chaos = stage as ChaosStage;
    const { services: [app], postgres: server, view } = chaos;
    const { db } = view;
    try {
      const user = await chaosUser(db, app.baseUrl);
      const pid = app.pid;
      const writes = new WriteLoad({ ...user, ratePerSecond: 20, workers: 4, targets: () => [app.baseUrl], requestTimeoutMs: 60_000 });
      chaos.load = writes;
      writes.phase = 'before';
      writes.start();
      const outages: Outage[] = [];
      for (let outage = 0; outage < OUTAGES; outage += 1) {
        await sleep(1500);
        await server.stop('immediate');
        writes.phase = `during ${outage}`;
        await sleep(OUTAGE_MS);
        await server.start();
        const upAt = performance.now();
        writes.phase = `after ${outage}`;
        let accepted = writes.firstAcceptedSince(upAt);
        while (!accepted && performance.now() - upAt < 60_000) {
          await sleep(20);
          accepted = writes.firstAcceptedSince(upAt);
        }
        if (!accepted) throw new Error(`no write was accepted within 60 s of PostgreSQL's return (outage ${outage + 1})`);
        const head = await lastCommittedPosition(db);
        const caughtUpMs = performance.now() - upAt + (await waitCaughtUp(db, head));
        outages.push({ firstWriteMs: accepted.at + accepted.ms - upAt, caughtUpMs, during: writes.outcomes.filter((sent) => sent.phase === `during ${outage}`) });
      }
      await sleep(1000);
      await writes.stop();
      expect([app.running, app.pid]).toEqual([true, pid]);
      const settleMs = await waitCaughtUp(db, await lastCommittedPosition(db));
      const ledger = await writes.ledger.check(app.baseUrl, user.key);
      const models = await checkReadModels(view);
      const during = outages.flatMap((outage) => outage.during);

      printSummary(
        `PostgreSQL restarted under load (private server, immediate shutdown, ${seconds(OUTAGE_MS)} down; the service is not restarted)`,
        [
          ['runs (outages)', OUTAGES],
          ['writes attempted', writes.ledger.attempted],
          ['writes accepted (2xx)', writes.ledger.accepted],
          ['writes sent during the outages', during.length],
          ['their answers', statusCounts(during)],
          ['error answers without a JSON body', during.filter((sent) => typeof sent.status === 'number' && sent.status >= 300 && !sent.withBody).length],
          ['slowest answer during an outage', seconds(Math.max(0, ...during.map((sent) => sent.ms)))],
          ['unanswered creates stored anyway', ledger.storedThoughUnanswered],
          ['writes lost (accepted, missing after recovery)', ledger.lost.length],
          ['transactions checked / activity logs checked', `${ledger.transactionsChecked} / ${ledger.activityChecked}`],
          ['recover: PostgreSQL up -> first accepted write', spread(outages.map((outage) => outage.firstWriteMs))],
          ['recover: PostgreSQL up -> read models at the head', spread(outages.map((outage) => outage.caughtUpMs))],
          ['service restarts', `0 (pid ${pid} throughout)`],
          ['settle after the load stopped', seconds(settleMs)],
        ],
        [...[...writes.errorBodies].map(([status, body]) => `  a ${status} said: ${body}`), '  read models against a fresh rebuild:', ...readModelLines(models)],
      );
      expect(ledger.lost).toEqual([]);
      expect(models.filter((model) => !model.agree || !model.appliedOnce)).toEqual([]);
      // Every write sent while PostgreSQL was down was answered, with an error status, not left hanging.
      expect(during.filter((sent) => sent.status === 'timeout')).toEqual([]);
      expect(during.length).toBeGreaterThan(0);
    } catch (error) {
      console.log(`service log (last lines):\n${app.logTail()}`);
      throw error;
    }
  }, 120_000 + OUTAGES * 60_000);
});
