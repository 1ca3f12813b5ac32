import { type CpuProfile, callersOf, packageOf, summariseProfile } from './cpu-profile.js';

const frame = (functionName: string, url: string, lineNumber = 0) => ({ functionName, url, lineNumber });

// Samples 1 ms apart: parse, parse, serialize, (garbage collector), parse.
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('parse', 'file:///work/main/node_modules/pg-protocol/dist/parser.js', 9) },
    { id: 2, callFrame: frame('serialize', 'file:///work/main/dist/src/modules/transactions/transaction.mapper.js', 4) },
    { id: 3, callFrame: frame('(garbage collector)', '') },
  ],
  startTime: 0,
  samples: [1, 1, 2, 3, 1],
  timeDeltas: [1000, 1000, 1000, 1000, 1000],
};

describe('cpu profile summary', () => {
  it('adds up self time by function, file and package', () => {
    const summary = summariseProfile(profile, { name: 'all', ranges: [{ fromMs: 0, toMs: Number.POSITIVE_INFINITY }] });
    expect(summary.totalMs).toBe(5);
    expect(summary.byFunction[0]).toEqual({ name: 'parse pg-protocol/dist/parser.js:10', ms: 3 });
    expect(summary.byFile.map((row) => row.name)).toEqual(['pg-protocol/dist/parser.js', 'dist/src/modules/transactions/transaction.mapper.js', '(garbage collector)']);
    expect(summary.byPackage).toEqual([
      { name: 'pg-protocol', ms: 3 },
      { name: 'ledgerline src/modules/transactions', ms: 1 },
      { name: '(garbage collector)', ms: 1 },
    ]);
  });

  it('counts only the samples inside the window', () => {
    const summary = summariseProfile(profile, { name: 'middle', ranges: [{ fromMs: 2, toMs: 4 }] });
    expect(summary.totalMs).toBe(2);
    expect(summary.byFunction.map((row) => row.name)).toEqual(['parse pg-protocol/dist/parser.js:10', 'serialize dist/src/modules/transactions/transaction.mapper.js:5']);
  });

  it('adds up the ranges of a phase measured in turns', () => {
    const summary = summariseProfile(profile, { name: 'turns', ranges: [{ fromMs: 0, toMs: 2 }, { fromMs: 4, toMs: 6 }] });
    expect(summary.byFunction).toEqual([{ name: 'parse pg-protocol/dist/parser.js:10', ms: 2 }, { name: '(garbage collector)', ms: 1 }]);
  });

  it('names scoped packages and node built-ins', () => {
    expect(packageOf(frame('x', 'file:///a/node_modules/@nestjs/core/router/router-proxy.js'))).toBe('@nestjs/core');
    expect(packageOf(frame('writev', 'node:internal/stream_base_commons'))).toBe('node:internal/stream_base_commons');
    expect(packageOf(frame('(program)', ''))).toBe('(program)');
  });

  it('names the callers a function\'s self time came from', () => {
    const tree: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('query', 'file:///a/node_modules/pg/lib/client.js', 0), children: [3] },
        { id: 2, callFrame: frame('end', 'node:_http_outgoing', 0), children: [4] },
        { id: 3, callFrame: frame('writev', ''), children: [] },
        { id: 4, callFrame: frame('writev', ''), children: [] },
      ],
      startTime: 0,
      samples: [3, 3, 4],
      timeDeltas: [1000, 1000, 1000],
    };
    expect(callersOf(tree, { name: 'all', ranges: [{ fromMs: 0, toMs: 10 }] }, 'writev')).toEqual([
      { name: 'query pg/lib/client.js', ms: 2 },
      { name: 'end node:_http_outgoing', ms: 1 },
    ]);
  });
});
