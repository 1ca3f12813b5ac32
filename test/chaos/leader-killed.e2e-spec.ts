import type { Kysely } from 'kysely';
import { PROJECTIONS } from '../../projections/index.js';
import { comparePositions, type GlobalPosition } from '../../src/core/events.js';
import type { Database } from '../../src/infrastructure/database/schema.js';
import { chaosRuns, chaosUser, printSummary, randomMs, seconds, sleep, spread } from '../support/chaos/chaos-fixture.js';
import { type ChaosStage, startChaosStage } from '../support/chaos/chaos-stage.js';
import { checkpoints, lastCommittedPosition, waitCaughtUp } from '../support/chaos/read-models.js';
import { DAEMON_LEASE } from '../../src/infrastructure/projections/projection-daemon.js';
import { checkReadModels, readModelLines } from '../support/chaos/rebuild-check.js';
import type { ServiceProcess } from '../support/chaos/service-process.js';
import { statusCounts, WriteLoad } from '../support/chaos/write-load.js';

/**
 * Two built service processes on one (private) PostgreSQL and one Redis, writes spread over both. The one
 * leading the projection daemon is SIGKILLed; the other must take the daemon's lease over (at once:
 * the crashed holder's connection is gone) and apply each event exactly once. The killed one is started again as
 * the standby before the next kill, KILLS times. test/two-instances.e2e-spec.ts covers two
 * in-process instances without a kill.
 */
const KILLS = chaosRuns(1, 0.25);

let stage: ChaosStage | null = null;

beforeAll(async () => {
  stage = await startChaosStage({ names: ['A', 'B'], redis: true });
}, 120_000);

afterAll(() => stage?.stop(), 60_000);

/** The process id holding the projection daemon's lease (holders are `host:pid:random`), if any holds it. */
async function daemonLeaderPid(db: Kysely<Database>): Promise<number | null> {
  const row = await db.selectFrom('projection_leases').select('holder').where('name', '=', DAEMON_LEASE).where('expires_at', '>', new Date()).executeTakeFirst();
  return row ? Number(row.holder.split(':').at(-2)) : null;
}

interface Takeover {
  readonly how: 'killed' | 'hung';
  /** kill (or hang) -> the survivor holds the daemon's lease; -> it has moved each projection's checkpoint (those behind at the kill). */
  readonly leaseMs: number;
  readonly moveMs: number[];
}

/** Polls until the survivor holds the daemon's lease and has moved every checkpoint the kill left behind the head. */
async function watchTakeover(db: Kysely<Database>, survivor: number, atKill: Map<string, { position: GlobalPosition }>, head: GlobalPosition, killedAt: number): Promise<Omit<Takeover, 'how'>> {
  let leaseMs: number | null = null;
  const behind = PROJECTIONS.filter((projection) => {
    const position = atKill.get(projection.name)?.position;
    return position !== undefined && comparePositions(position, head) < 0;
  });
  const movedAt = new Map<string, number>();
  while (leaseMs === null || movedAt.size < behind.length) {
    if (performance.now() - killedAt > 60_000) throw new Error(`after 60 s the survivor ${leaseMs === null ? 'had not taken the lease' : `had moved only ${[...movedAt.keys()].join(', ') || 'nothing'}`}`);
    const [leader, now] = await Promise.all([daemonLeaderPid(db), checkpoints(db)]);
    const at = performance.now() - killedAt;
    if (leader === survivor && leaseMs === null) leaseMs = at;
    for (const projection of behind) {
      const before = atKill.get(projection.name)?.position;
      const after = now.get(projection.name)?.position;
      if (!movedAt.has(projection.name) && before && after && comparePositions(after, before) > 0) movedAt.set(projection.name, at);
    }
    await sleep(25);
  }
  return { leaseMs, moveMs: [...movedAt.values()] };
}

describe('two instances on one database under load, the leader killed or hung', () => {
  it(`the standby takes every projection over and each event is applied exactly once, over ${KILLS} kills and ${KILLS} hangs`, async () => {
    const chaos = stage as ChaosStage;
    const { services: instances, view } = chaos;
    const { db } = view;
    try {
      const user = await chaosUser(db, instances[0].baseUrl);
      const writes = new WriteLoad({
        ...user,
        ratePerSecond: 20,
        workers: 4,
        targets: () => instances.filter((instance) => instance.ready).map((instance) => instance.baseUrl),
        requestTimeoutMs: 30_000,
      });
      chaos.load = writes;
      writes.start();
      const takeovers: Takeover[] = [];
      // Every other time the leader hangs (SIGSTOP: its connections stay up, so its lease must expire) instead of dying.
      for (let kill = 0; kill < KILLS * 2; kill += 1) {
        const how = kill % 2 === 0 ? 'killed' : 'hung';
        await sleep(randomMs(1500, 3000));
        const leaderPid = await daemonLeaderPid(db);
        const leader = instances.find((instance) => instance.pid === leaderPid);
        if (!leader) throw new Error(`no instance leads the projection daemon (lease holder pid ${leaderPid})`);
        const survivor = instances.find((instance) => instance !== leader) as ServiceProcess;
        const atKill = await checkpoints(db);
        const head = await lastCommittedPosition(db);
        if (how === 'killed') await leader.kill9();
        else leader.freeze();
        const killedAt = performance.now();
        takeovers.push({ how, ...(await watchTakeover(db, survivor.pid ?? -1, atKill, head, killedAt)) });
        // The hung one wakes to find its lease gone, and stands by; the killed one is started again as the standby.
        if (how === 'hung') leader.thaw();
        else await leader.start();
      }
      await sleep(1000);
      await writes.stop();
      const settleMs = await waitCaughtUp(db, await lastCommittedPosition(db));
      const ledger = await writes.ledger.check((instances.find((instance) => instance.ready) as ServiceProcess).baseUrl, user.key);
      const models = await checkReadModels(view);
      const unanswered = writes.outcomes.filter((sent) => typeof sent.status !== 'number' || sent.status >= 300);

      printSummary(
        'two instances on one database, the daemon leader SIGKILLed under load (lease ttl 10 s; a crashed holder is taken over at once)',
        [
          ['runs (leader killed / hung)', `${takeovers.filter((takeover) => takeover.how === 'killed').length} / ${takeovers.filter((takeover) => takeover.how === 'hung').length}`],
          ['writes attempted (spread over the live instances)', writes.ledger.attempted],
          ['writes accepted (2xx)', writes.ledger.accepted],
          ['writes unanswered', `${unanswered.length} (${statusCounts(unanswered)})`],
          ['unanswered creates stored anyway', ledger.storedThoughUnanswered],
          ['writes lost (accepted, missing after recovery)', ledger.lost.length],
          ['transactions checked / activity logs checked', `${ledger.transactionsChecked} / ${ledger.activityChecked}`],
          ['takeover: kill -> survivor holds the daemon lease', spread(takeovers.filter((takeover) => takeover.how === 'killed').map((takeover) => takeover.leaseMs))],
          ['takeover: hang -> survivor holds the daemon lease (the lease expires: ttl 10 s)', spread(takeovers.filter((takeover) => takeover.how === 'hung').map((takeover) => takeover.leaseMs))],
          ['takeover: kill -> survivor moves a checkpoint left behind (per projection)', spread(takeovers.flatMap((takeover) => takeover.moveMs))],
          ['takeover: kill -> every projection moved, per kill', takeovers.map((takeover) => seconds(Math.max(takeover.leaseMs, ...takeover.moveMs))).join(', ')],
          ['settle after the load stopped', seconds(settleMs)],
        ],
        [...[...writes.errorBodies].map(([status, body]) => `  a ${status} said: ${body}`), '  read models against a fresh rebuild (exactly once: applied = stored):', ...readModelLines(models)],
      );
      expect(ledger.lost).toEqual([]);
      expect(models.filter((model) => !model.agree || !model.appliedOnce)).toEqual([]);
      expect(await db.selectFrom('parked_events').select('projection').execute()).toEqual([]);
    } catch (error) {
      for (const instance of instances) console.log(`${instance.name} log (last lines):\n${instance.logTail()}`);
      throw error;
    }
  }, 120_000 + KILLS * 2 * 90_000);
});
