import { PROJECTIONS } from '../../../projections/index.js';
import { chooseProjections, verificationLines } from './rebuild-commands.js';

describe('choosing projections for a command', () => {
  it('takes the names given, in that order, or every projection with --all', () => {
    expect((chooseProjections(PROJECTIONS, ['tags', 'accounts'], false) as { name: string }[]).map((projection) => projection.name)).toEqual(['tags', 'accounts']);
    expect(chooseProjections(PROJECTIONS, [], true)).toHaveLength(PROJECTIONS.length);
  });

  it('says which names are unknown and which exist', () => {
    expect(chooseProjections(PROJECTIONS, ['tags', 'transactoins'], false)).toBe(`unknown projection "transactoins"; known: ${PROJECTIONS.map((projection) => projection.name).join(', ')}`);
    expect(chooseProjections(PROJECTIONS, [], false)).toBe('name a projection, or --all');
    expect(chooseProjections(PROJECTIONS, ['tags'], true)).toBe('give projection names or --all, not both');
  });
});

describe('audit verify output', () => {
  const table = { table: 'tags', liveRows: 5, replayRows: 5, liveChecksum: 'a'.repeat(32), replayChecksum: 'a'.repeat(32), agree: true };
  const position = { commit: 10n, prepare: 3n };

  it('prints a line per table and says all agree', () => {
    expect(verificationLines([{ projection: 'tags', version: 1, position, agree: true, tables: [table] }])).toEqual([
      'projection\tversion\ttable\trows\treplayed\tchecksum\treplay checksum\tverdict',
      `tags\t1\ttags\t5\t5\t${'a'.repeat(32)}\t${'a'.repeat(32)}\tagrees`,
      'every read model agrees with a replay of the event store (1 projection)',
    ]);
  });

  it('names the tables and projections that disagree', () => {
    const tampered = { ...table, liveRows: 4, agree: false };
    const lines = verificationLines([{ projection: 'tags', version: 1, position, agree: false, tables: [tampered] }]);
    expect(lines[1]).toMatch(/\tDISAGREES$/);
    expect(lines[2]).toMatch(/^DISAGREES: tags differ/);
  });
});
