import type pg from 'pg';
import { backfillChain, unchainedCount } from '../../../infrastructure/event-store/postgres-chain-backfill.js';
import type { CommandOutput } from '../../../infrastructure/projections/projection-commands.js';
import { ProgressReporter, type ProgressStream, type RebuildProgress } from '../../../infrastructure/projections/rebuild-progress.js';

const SHOWN = { title: 'chain', unit: 'events', rateUnit: 'ev/s' };

/**
 * `ledgerline audit chain`: gives the events stored before the hash chain their hashes (decision
 * 0044), with a progress bar on `progress`; stopped, it goes on where it was when run again. Exit 0
 * when every event has its hash; 1 when another run holds the lock, or some events cannot be
 * chained (the event before them is missing: `audit verify --chain` names where).
 */
export async function chainBackfillCommand(store: { pool: pg.Pool } | 'eventstoredb', out: CommandOutput, progress: ProgressStream, now: () => number = Date.now): Promise<number> {
  if (store === 'eventstoredb') {
    out.log('Nothing to do on EventStoreDB: its events are never rewritten. An event stored before the chain is chained through by the next append to its stream, whose hash covers it (decision 0044).');
    return 0;
  }
  const reporter = new ProgressReporter(progress, now);
  const started = now();
  const total = await unchainedCount(store.pool);
  let done = 0;
  const state = (phase: RebuildProgress['phase']): RebuildProgress => ({ projection: 'chain', done, total: Math.max(total, done), doneAtStart: 0, elapsedMs: now() - started, phase, shown: SHOWN });
  const outcome = await backfillChain(store.pool, (chained) => {
    done = chained;
    reporter.update(state('replaying'));
  });
  if (!outcome.ran) {
    out.error('Another `ledgerline audit chain` is running: it holds the lock. Run this again once it is done.');
    return 1;
  }
  reporter.finish(state('done'));
  if (outcome.unchainable > 0) {
    out.error(`Chained ${count(outcome.chained)} events; ${count(outcome.unchainable)} cannot be chained: the event before them in their stream is missing. \`ledgerline audit verify --chain\` names where.`);
    return 1;
  }
  out.log(`Chained ${count(outcome.chained)} events: every event has its hash.`);
  return 0;
}

const count = (n: number) => n.toLocaleString('en');
