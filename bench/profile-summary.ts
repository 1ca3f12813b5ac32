import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type CpuProfile, type PhaseWindow, callersOf, summariseProfile } from './support/cpu-profile.js';

/**
 * node dist/bench/profile-summary.js <file.cpuprofile> [--phases phases.json] [--top 25] [--callers writev]
 * Self time by function, by file and by package, for the whole profile and, given the phases the
 * bench wrote beside it, for each measured phase; with --callers, where that function was called from.
 */
const { values, positionals } = parseArgs({ allowPositionals: true, options: { phases: { type: 'string' }, top: { type: 'string', default: '25' }, callers: { type: 'string', multiple: true, default: [] } } });
if (positionals.length !== 1) {
  console.error('usage: node dist/bench/profile-summary.js <file.cpuprofile> [--phases phases.json] [--top 25] [--callers writev]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(positionals[0], 'utf8')) as CpuProfile;
const top = Number(values.top);
const windows: PhaseWindow[] = [{ name: 'whole profile', ranges: [{ fromMs: 0, toMs: Number.POSITIVE_INFINITY }] }];
if (values.phases) {
  const { serviceStartedAt, phases } = JSON.parse(readFileSync(values.phases, 'utf8')) as { serviceStartedAt: number; phases: Array<{ name: string; from: number; to: number }> };
  // The profile starts as the process boots, a few tens of ms after the bench spawned it.
  for (const name of new Set(phases.map((phase) => phase.name))) {
    windows.push({ name, ranges: phases.filter((phase) => phase.name === name).map((phase) => ({ fromMs: phase.from - serviceStartedAt, toMs: phase.to - serviceStartedAt })) });
  }
}

for (const window of windows) {
  const summary = summariseProfile(profile, window);
  const ranges = window.ranges.filter((range) => Number.isFinite(range.toMs)).map((range) => `${(range.fromMs / 1000).toFixed(1)}–${(range.toMs / 1000).toFixed(1)} s`);
  console.log(`\n## ${window.name}: ${(summary.totalMs / 1000).toFixed(1)} s sampled${ranges.length > 0 ? ` (${ranges.join(', ')} after start)` : ''}`);
  for (const [title, rows] of [['function', summary.byFunction], ['file', summary.byFile], ['package', summary.byPackage]] as const) {
    console.log(`\nself time by ${title}:`);
    for (const row of rows.slice(0, top)) console.log(`${row.ms.toFixed(0).padStart(8)} ms ${((row.ms / summary.totalMs) * 100).toFixed(1).padStart(5)}%  ${row.name}`);
  }
  for (const name of values.callers) {
    console.log(`\ncallers of ${name}:`);
    for (const row of callersOf(profile, window, name).slice(0, 5)) console.log(`${row.ms.toFixed(0).padStart(8)} ms  ${row.name}`);
  }
}
