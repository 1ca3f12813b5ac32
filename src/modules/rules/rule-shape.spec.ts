import { actionIssues, conditionIssues } from './rule-shape.js';

const paths = (issues: readonly { path: readonly unknown[] }[]) => issues.map((issue) => issue.path);

describe('rule shape', () => {
  it('takes each field with its own ops and values', () => {
    expect(
      conditionIssues([
        { field: 'name', op: 'contains', value: 'cafe' },
        { field: 'merchantName', op: 'endsWith', value: 'x'.repeat(200) },
        { field: 'amount', op: 'gt', value: -12.5 },
        { field: 'amount', op: 'between', value: [-10, -10] },
        { field: 'accountId', op: 'equals', value: '6f1c1f0e-2a6b-4c1e-9d7a-0a0a0a0a0a01' },
      ]),
    ).toEqual([]);
  });

  it('refuses an op the field does not take, at the op', () => {
    expect(paths(conditionIssues([{ field: 'name', op: 'gt', value: 'x' }, { field: 'amount', op: 'contains', value: 1 }, { field: 'categoryId', op: 'contains', value: 'x' }]))).toEqual([
      ['conditions', 0, 'op'],
      ['conditions', 1, 'op'],
      ['conditions', 2, 'op'],
    ]);
  });

  it('refuses a value that does not suit the op, at the value', () => {
    expect(
      paths(
        conditionIssues([
          { field: 'name', op: 'contains', value: '' },
          { field: 'name', op: 'contains', value: 'x'.repeat(201) },
          { field: 'name', op: 'equals', value: 5 },
          { field: 'amount', op: 'equals', value: '5' },
          { field: 'amount', op: 'equals', value: 0.12345 },
          { field: 'amount', op: 'between', value: [5, 1] },
          { field: 'amount', op: 'between', value: 5 },
          { field: 'accountId', op: 'equals', value: 'not-an-id' },
        ]),
      ),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((index) => ['conditions', index, 'value']));
  });

  it('needs each action’s own property, and no other action’s', () => {
    expect(actionIssues([{ type: 'setNotes', notes: 'x' }, { type: 'addTags', tagIds: ['t'] }])).toEqual([]);
    expect(paths(actionIssues([{ type: 'setCategory' }, { type: 'setNotes', notes: 'x', merchantName: 'y' }]))).toEqual([
      ['actions', 0, 'categoryId'],
      ['actions', 1, 'merchantName'],
    ]);
  });
});
