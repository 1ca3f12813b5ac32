import type { Kysely } from 'kysely';
import { PROJECTIONS } from '../../projections/index.js';
import { comparePositions, type GlobalPosition } from '../../src/core/events.js';
import type { Database } from '../../src/infrastructure/database/schema.js';
import { chaosRuns, chaosUser, printSummary, randomMs, seconds, sleep, spread } from '../support/chaos/chaos-fixture.js';
import { type ChaosStage, startChaosStage } from '../support/chaos/chaos-stage.js';
import { checkpoints, lastCommittedPosition, waitCaughtUp } from '../support/chaos/read-models.js';
import { checkReadModels, readModelLines } from '../support/chaos/rebuild-check.js';
import type { ServiceProcess } from '../support/chaos/service-process.js';
import { statusCounts, WriteLoad } from '../support/chaos/write-load.js';

/**
 * Two built service processes on one (private) PostgreSQL and one Redis, writes spread over both. The one
 * holding the projection leases is SIGKILLed; the other must take every projection over (after
 * the lease's ttl, 10 s) and apply each event exactly once. The killed one is started again as
 * the standby before the next kill, KILLS times. test/two-instances.e2e-spec.ts covers two
 * in-process instances without a kill.
 */
const KILLS = chaosRuns(1, 0.25);

let stage: ChaosStage | null = null;

beforeAll(async () => {
  stage = await startChaosStage({ names: ['A', 'B'], redis: true });
}, 120_000);

afterAll(() => stage?.stop(), 60_000);

/** Lease holders are `host:pid:random`: how many projection leases each process id holds. */
async function leasesByPid(db: Kysely<Database>): Promise<Map<number, string[]>> {
  const rows = await db.selectFrom('projection_leases').select(['name', 'holder']).where('expires_at', '>', new Date()).execute();
  const held = new Map<number, string[]>();
  for (const row of rows) {
    const pid = Number(row.holder.split(':').at(-2));
    held.set(pid, [...(held.get(pid) ?? []), row.name]);
  }
  return held;
}

interface Takeover {
  readonly leaderHeld: number;
  /** Per projection the leader held: kill -> the survivor holds its lease, and kill -> the survivor has moved its checkpoint. */
  readonly leaseMs: number[];
  readonly moveMs: number[];
}

/**
 * Polls until the survivor holds the lease of every projection the leader held and has moved each
 * one's checkpoint past where the kill left it.
 */
async function watchTakeover(db: Kysely<Database>, survivor: number, taken: readonly string[], atKill: Map<string, { position: GlobalPosition }>, killedAt: number) {
  const leaseAt = new Map<string, number>();
  const movedAt = new Map<string, number>();
  while (movedAt.size < taken.length) {
    if (performance.now() - killedAt > 60_000) throw new Error(`after 60 s the survivor had taken over only ${[...movedAt.keys()].join(', ') || 'nothing'} of ${taken.join(', ')}`);
    const [held, now] = await Promise.all([leasesByPid(db), checkpoints(db)]);
    const at = performance.now() - killedAt;
    const survivorHolds = new Set(held.get(survivor) ?? []);
    for (const projection of PROJECTIONS.filter((candidate) => taken.includes(leaseKey(candidate)))) {
      if (!survivorHolds.has(leaseKey(projection))) continue;
      if (!leaseAt.has(projection.name)) leaseAt.set(projection.name, at);
      const before = atKill.get(projection.name)?.position;
      const after = now.get(projection.name)?.position;
      if (!movedAt.has(projection.name) && before && after && comparePositions(after, before) > 0) movedAt.set(projection.name, at);
    }
    await sleep(50);
  }
  return { leaseMs: [...leaseAt.values()], moveMs: [...movedAt.values()] };
}

const leaseKey = (projection: { name: string; version: number }) => `projection:${projection.name}:${projection.version}`;

describe('two instances on one database under load, the leader killed', () => {
  it(`the standby takes every projection over and each event is applied exactly once, over ${KILLS} kills`, async () => {
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
      for (let kill = 0; kill < KILLS; kill += 1) {
        await sleep(randomMs(1500, 3000));
        const held = await leasesByPid(db);
        const leader = instances.reduce((most, instance) => ((held.get(instance.pid ?? -1)?.length ?? 0) > (held.get(most.pid ?? -1)?.length ?? 0) ? instance : most));
        const survivor = instances.find((instance) => instance !== leader) as ServiceProcess;
        const taken = held.get(leader.pid ?? -1) ?? [];
        const atKill = await checkpoints(db);
        await leader.kill9();
        const killedAt = performance.now();
        const seen = await watchTakeover(db, survivor.pid ?? -1, taken, atKill, killedAt);
        takeovers.push({ leaderHeld: taken.length, ...seen });
        if (kill < KILLS - 1) await leader.start();
      }
      await sleep(1000);
      await writes.stop();
      const settleMs = await waitCaughtUp(db, await lastCommittedPosition(db));
      const ledger = await writes.ledger.check((instances.find((instance) => instance.ready) as ServiceProcess).baseUrl, user.key);
      const models = await checkReadModels(view);
      const unanswered = writes.outcomes.filter((sent) => typeof sent.status !== 'number' || sent.status >= 300);

      printSummary(
        'two instances on one database, the leader SIGKILLed under load (lease ttl 10 s, the default)',
        [
          ['runs (leader kills)', KILLS],
          ['projection leases the killed leader held', takeovers.map((takeover) => `${takeover.leaderHeld}/${PROJECTIONS.length}`).join(', ')],
          ['writes attempted (spread over the live instances)', writes.ledger.attempted],
          ['writes accepted (2xx)', writes.ledger.accepted],
          ['writes unanswered', `${unanswered.length} (${statusCounts(unanswered)})`],
          ['unanswered creates stored anyway', ledger.storedThoughUnanswered],
          ['writes lost (accepted, missing after recovery)', ledger.lost.length],
          ['transactions checked / activity logs checked', `${ledger.transactionsChecked} / ${ledger.activityChecked}`],
          ['takeover: kill -> survivor holds the lease (per projection taken)', spread(takeovers.flatMap((takeover) => takeover.leaseMs))],
          ['takeover: kill -> survivor moves its checkpoint (per projection)', spread(takeovers.flatMap((takeover) => takeover.moveMs))],
          ['takeover: kill -> every projection moved, per kill', takeovers.map((takeover) => seconds(Math.max(0, ...takeover.moveMs))).join(', ')],
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
  }, 120_000 + KILLS * 90_000);
});
