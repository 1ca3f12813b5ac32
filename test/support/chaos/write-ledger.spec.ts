import { lostWrites, WriteLedger } from './write-ledger.js';

const shown = (notes: string | null, tagIds: string[] = []) => ({ notes, tagIds });

describe('the write ledger of a chaos run', () => {
  it('finds nothing lost when the API shows what the accepted writes left', () => {
    const ledger = new WriteLedger();
    const transaction = ledger.created('t1');
    ledger.changed(transaction, { notes: 'a' }, true);
    ledger.changed(transaction, { tagIds: ['y', 'x'] }, true);
    expect(lostWrites(transaction, shown('a', ['x', 'y']), ['a'])).toEqual([]);
  });

  it('counts an accepted create that is not listed, an accepted delete still listed, and an accepted edit not shown', () => {
    const ledger = new WriteLedger();
    const created = ledger.created('t1');
    expect(lostWrites(created, undefined, [])).toHaveLength(1);

    const deleted = ledger.created('t2');
    ledger.changed(deleted, { deleted: true }, true);
    expect(lostWrites(deleted, undefined, [])).toEqual([]);
    expect(lostWrites(deleted, shown(null), [])).toHaveLength(1);

    const edited = ledger.created('t3');
    ledger.changed(edited, { notes: 'first' }, true);
    ledger.changed(edited, { notes: 'second' }, true);
    expect(lostWrites(edited, shown('first'), ['first'])).toHaveLength(2);
    expect(lostWrites(edited, shown('second'), ['second'])).toHaveLength(1);
  });

  it('accepts either outcome of an unanswered write, field by field, and forgets it once a later write is accepted', () => {
    const ledger = new WriteLedger();
    const transaction = ledger.created('t1');
    ledger.changed(transaction, { notes: 'maybe' }, false);
    ledger.changed(transaction, { tagIds: ['x'] }, true);
    expect(lostWrites(transaction, shown(null, ['x']), [])).toEqual([]);
    expect(lostWrites(transaction, shown('maybe', ['x']), ['maybe'])).toEqual([]);
    expect(lostWrites(transaction, shown(null, []), [])).toHaveLength(1);
    ledger.changed(transaction, { notes: 'sure' }, true);
    expect(lostWrites(transaction, shown('maybe', ['x']), ['maybe', 'sure'])).toHaveLength(1);

    const unsureDelete = ledger.created('t2');
    ledger.changed(unsureDelete, { deleted: true }, false);
    expect(lostWrites(unsureDelete, undefined, [])).toEqual([]);
    expect(lostWrites(unsureDelete, shown(null), [])).toEqual([]);
  });
});
