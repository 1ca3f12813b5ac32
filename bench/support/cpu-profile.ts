/** The parts of a V8 .cpuprofile (node --cpu-prof) a summary reads. */
export interface CpuProfile {
  readonly nodes: ReadonlyArray<{ readonly id: number; readonly callFrame: CallFrame; readonly children?: readonly number[] }>;
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

/** Time ranges, in milliseconds after the profile started, summarised together under one name. */
export interface PhaseWindow {
  readonly name: string;
  readonly ranges: ReadonlyArray<{ readonly fromMs: number; readonly toMs: number }>;
}

export interface SelfTime {
  readonly name: string;
  readonly ms: number;
}

export interface ProfileSummary {
  readonly totalMs: number;
  readonly byFunction: SelfTime[];
  readonly byFile: SelfTime[];
  readonly byPackage: SelfTime[];
}

/** Self time (the samples where a function was on top of the stack) inside the window's ranges, largest first. */
export function summariseProfile(profile: CpuProfile, window: PhaseWindow): ProfileSummary {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let totalMs = 0;
  let atMs = 0;
  for (const [index, nodeId] of profile.samples.entries()) {
    const deltaMs = (profile.timeDeltas[index] ?? 0) / 1000;
    atMs += deltaMs;
    if (!window.ranges.some((range) => atMs >= range.fromMs && atMs < range.toMs)) continue;
    const frame = frames.get(nodeId);
    if (!frame) continue;
    totalMs += deltaMs;
    const file = fileOf(frame.url) || packageOf(frame);
    add(byFunction, frame.url ? `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}` : frame.functionName, deltaMs);
    add(byFile, file, deltaMs);
    add(byPackage, packageOf(frame), deltaMs);
  }
  return { totalMs, byFunction: sorted(byFunction), byFile: sorted(byFile), byPackage: sorted(byPackage) };
}

/** A path short enough to read: from node_modules/ or dist/ on, node: built-ins as they are. */
export function fileOf(url: string): string {
  if (!url) return '';
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) return path.slice(modules + '/node_modules/'.length);
  const dist = path.indexOf('/dist/');
  return dist >= 0 ? path.slice(dist + 1) : path;
}

/** The npm package, Ledgerline's own folder under dist/src, a node: built-in, or V8's own entries ((garbage collector), (idle), (program)). */
export function packageOf(frame: CallFrame): string {
  if (!frame.url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const file = fileOf(frame.url);
  if (file.startsWith('node:')) return `node:${file.slice('node:'.length).split('/').slice(0, 2).join('/')}`;
  if (file.startsWith('dist/')) return `ledgerline ${file.split('/').slice(1, 4).join('/')}`;
  const parts = file.split('/');
  if (frame.url.includes('/node_modules/')) return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  return file;
}

/** Where `functionName`'s self time inside the window came from: its `depth` nearest callers, largest first. */
export function callersOf(profile: CpuProfile, window: PhaseWindow, functionName: string, depth = 8): SelfTime[] {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const chains = new Map<string, number>();
  let atMs = 0;
  for (const [index, nodeId] of profile.samples.entries()) {
    const deltaMs = (profile.timeDeltas[index] ?? 0) / 1000;
    atMs += deltaMs;
    if (nodes.get(nodeId)?.callFrame.functionName !== functionName || !window.ranges.some((range) => atMs >= range.fromMs && atMs < range.toMs)) continue;
    const chain: string[] = [];
    for (let parent = parents.get(nodeId); parent !== undefined && chain.length < depth; parent = parents.get(parent)) {
      const frame = (nodes.get(parent) as { callFrame: CallFrame }).callFrame;
      chain.push(`${frame.functionName || '(anonymous)'} ${fileOf(frame.url)}`);
    }
    add(chains, chain.join(' < '), deltaMs);
  }
  return sorted(chains);
}

function add(totals: Map<string, number>, key: string, ms: number): void {
  totals.set(key, (totals.get(key) ?? 0) + ms);
}

function sorted(totals: Map<string, number>): SelfTime[] {
  return [...totals].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
}
