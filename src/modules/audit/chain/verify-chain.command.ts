import type { EventLog } from '../../../infrastructure/event-store/event-log.port.js';
import type { CommandOutput } from '../../../infrastructure/projections/projection-commands.js';
import { ProgressReporter, type ProgressStream, type RebuildProgress } from '../../../infrastructure/projections/rebuild-progress.js';
import { type ChainReport, ChainVerification } from './chain-verification.js';

const SHOWN = { title: 'verify chain', unit: 'events', rateUnit: 'ev/s' };

/**
 * `ledgerline audit verify --chain`: every stream's hash chain, with a progress bar on `progress`
 * (stderr). Exit 0 when every event is chained and follows its predecessor; 1 when a stream is
 * broken (each one named, at its first event that does not follow) or events are not chained yet.
 */
export async function verifyChainCommand(log: EventLog, options: { json: boolean }, out: CommandOutput, progress: ProgressStream, now: () => number = Date.now): Promise<number> {
  const report = await verifyChain(log, progress, now);
  out.log(options.json ? JSON.stringify(report, null, 2) : chainReportLines(report).join('\n'));
  return report.intact ? 0 : 1;
}

export async function verifyChain(log: EventLog, progress: ProgressStream, now: () => number = Date.now): Promise<ChainReport> {
  const reporter = new ProgressReporter(progress, now);
  const started = now();
  const total = await log.countEvents();
  const verification = new ChainVerification(log.streamsTogether);
  let done = 0;
  const state = (phase: RebuildProgress['phase']): RebuildProgress => ({ projection: 'chain', done, total: total === null ? null : Math.max(total, done), doneAtStart: 0, elapsedMs: now() - started, phase, shown: SHOWN });
  for await (const page of log.everyEvent()) {
    for (const event of page) verification.check(event);
    done += page.length;
    reporter.update(state('replaying'));
  }
  reporter.finish(state('done'));
  return verification.finish();
}

/** Each broken stream on a line, at its first event that does not follow; then the verdict. */
export function chainReportLines(report: ChainReport): string[] {
  const lines = report.broken.map((link) => `BROKEN ${link.streamId} at revision ${link.revision} (event ${link.eventId}, ${link.type}, position ${link.position}): ${link.explanation}`);
  const counted = `${count(report.streams)} stream${report.streams === 1 ? '' : 's'}, ${count(report.events)} event${report.events === 1 ? '' : 's'}`;
  if (report.unchained.events > 0) {
    lines.push(
      `NOT CHAINED YET: ${count(report.unchained.events)} event${report.unchained.events === 1 ? '' : 's'} at the end of ${count(report.unchained.streams)} stream${report.unchained.streams === 1 ? '' : 's'} ` +
        'have no hash and nothing after them vouches for them: on PostgreSQL `ledgerline audit chain` gives them one (events stored before the chain; on EventStoreDB the next append to the stream does)',
    );
  }
  if (report.broken.length > 0) lines.push(`Chain BROKEN in ${count(report.broken.length)} of ${counted}: the events named were changed, removed or moved after they were written.`);
  else if (report.unchained.events === 0) lines.push(`Chain intact: every event of ${counted} follows the one before it.`);
  else lines.push(`No broken chain in ${counted}, but not every event is chained yet.`);
  return lines;
}

const count = (n: number) => n.toLocaleString('en');
