import { chaosRuns, chaosUser, printSummary, randomMs, seconds, sleep, spread } from '../support/chaos/chaos-fixture.js';
import { lastCommittedPosition, projectionsBehind, waitCaughtUp } from '../support/chaos/read-models.js';
import { checkReadModels, readModelLines } from '../support/chaos/rebuild-check.js';
import { type ChaosStage, startChaosStage } from '../support/chaos/chaos-stage.js';
import { statusCounts, WriteLoad } from '../support/chaos/write-load.js';

/**
 * The built service on a private PostgreSQL, SIGKILLed at random moments while its projections are applying a steady
 * write load, and started again, RUNS times. Afterwards every accepted write shows through the
 * API and every read model equals a fresh replay of the event store.
 */
const RUNS = chaosRuns(3);

let stage: ChaosStage | null = null;

beforeAll(async () => {
  stage = await startChaosStage();
}, 120_000);

afterAll(() => stage?.stop(), 60_000);

interface Run {
  readonly behindAtKill: number;
  readonly healthyMs: number;
  readonly firstWriteMs: number;
  readonly caughtUpMs: number;
}

describe('kill -9 mid-projection under write load', () => {
  it(`loses no accepted write and leaves every read model equal to a rebuild, over ${RUNS} kills`, async () => {
    const chaos = stage as ChaosStage;
    const { services: [app], view } = chaos;
    const { db } = view;
    try {
      const user = await chaosUser(db, app.baseUrl);
      const writes = new WriteLoad({ ...user, ratePerSecond: 25, workers: 5, targets: () => [app.baseUrl], requestTimeoutMs: 20_000 });
      chaos.load = writes;
      writes.start();
      const runs: Run[] = [];
      for (let run = 0; run < RUNS; run += 1) {
        await sleep(randomMs(500, 2500));
        // Kill while some projection is behind the newest event: mid-apply, not idle.
        let head = await lastCommittedPosition(db);
        let behindAtKill = await projectionsBehind(db, head);
        for (let tries = 0; behindAtKill === 0 && tries < 100; tries += 1) {
          await sleep(randomMs(5, 30));
          head = await lastCommittedPosition(db);
          behindAtKill = await projectionsBehind(db, head);
        }
        await app.kill9();
        const killedAt = performance.now();
        await app.start();
        const healthyMs = performance.now() - killedAt;
        const caughtUpMs = healthyMs + (await waitCaughtUp(db, head));
        let accepted = writes.firstAcceptedSince(killedAt);
        while (!accepted && performance.now() - killedAt < 60_000) {
          await sleep(20);
          accepted = writes.firstAcceptedSince(killedAt);
        }
        if (!accepted) throw new Error(`no write was accepted within 60 s of kill ${run + 1}`);
        runs.push({ behindAtKill, healthyMs, firstWriteMs: accepted.at + accepted.ms - killedAt, caughtUpMs });
      }
      await writes.stop();
      const settleMs = await waitCaughtUp(db, await lastCommittedPosition(db));
      const ledger = await writes.ledger.check(app.baseUrl, user.key);
      const models = await checkReadModels(view);

      printSummary(
        'kill -9 mid-projection (built service, SIGKILL then restart, under write load)',
        [
          ['runs (kills)', RUNS],
          ['projections behind the head at each kill', runs.map((run) => run.behindAtKill).join(', ')],
          ['writes attempted', writes.ledger.attempted],
          ['writes accepted (2xx)', writes.ledger.accepted],
          ['writes unanswered (refused/reset/5xx)', `${writes.ledger.unanswered} (${statusCounts(writes.outcomes.filter((outcome) => typeof outcome.status !== 'number' || outcome.status >= 300))})`],
          ['unanswered creates stored anyway', ledger.storedThoughUnanswered],
          ['writes lost (accepted, missing after recovery)', ledger.lost.length],
          ['transactions checked / activity logs checked', `${ledger.transactionsChecked} / ${ledger.activityChecked}`],
          ['recover: kill -> healthy', spread(runs.map((run) => run.healthyMs))],
          ['recover: kill -> first accepted write', spread(runs.map((run) => run.firstWriteMs))],
          ['recover: kill -> read models at the head of the kill', spread(runs.map((run) => run.caughtUpMs))],
          ['settle after the load stopped', seconds(settleMs)],
        ],
        ['  read models against a fresh rebuild:', ...readModelLines(models)],
      );
      expect(ledger.lost).toEqual([]);
      expect(models.filter((model) => !model.agree || !model.appliedOnce)).toEqual([]);
      expect(writes.ledger.accepted).toBeGreaterThan(RUNS);
    } catch (error) {
      console.log(`service log (last lines):\n${app.logTail()}`);
      throw error;
    }
  }, 120_000 + RUNS * 30_000);
});
