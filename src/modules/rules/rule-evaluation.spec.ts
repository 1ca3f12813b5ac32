import { changesOf, conditionHolds, ruleMatches, type TransactionFacts } from './rule-evaluation.js';
import type { RuleCondition } from './rule.js';

const ACCOUNT = '6f1c1f0e-2a6b-4c1e-9d7a-0a0a0a0a0a01';
const CATEGORY = '6f1c1f0e-2a6b-4c1e-9d7a-0a0a0a0a0a02';
const facts: TransactionFacts = { name: 'STARBUCKS #1234 Seattle', merchantName: 'Starbucks', amount: '-4.5', accountId: ACCOUNT, categoryId: null };
const holds = (condition: RuleCondition, on: TransactionFacts = facts) => conditionHolds(condition, on);

describe('rule conditions', () => {
  it('matches text case-insensitively with each op', () => {
    expect(holds({ field: 'name', op: 'contains', value: 'starbucks #' })).toBe(true);
    expect(holds({ field: 'name', op: 'contains', value: 'dunkin' })).toBe(false);
    expect(holds({ field: 'merchantName', op: 'equals', value: 'STARBUCKS' })).toBe(true);
    expect(holds({ field: 'merchantName', op: 'equals', value: 'Starbuck' })).toBe(false);
    expect(holds({ field: 'name', op: 'startsWith', value: 'starbucks' })).toBe(true);
    expect(holds({ field: 'name', op: 'startsWith', value: 'seattle' })).toBe(false);
    expect(holds({ field: 'name', op: 'endsWith', value: 'SEATTLE' })).toBe(true);
    expect(holds({ field: 'name', op: 'endsWith', value: 'starbucks' })).toBe(false);
  });

  it('takes text values literally, not as patterns', () => {
    expect(holds({ field: 'name', op: 'contains', value: '.*' })).toBe(false);
    expect(holds({ field: 'name', op: 'contains', value: '#1234' })).toBe(true);
  });

  it('never matches a text condition on a missing merchant name', () => {
    expect(holds({ field: 'merchantName', op: 'contains', value: '' }, { ...facts, merchantName: null })).toBe(false);
  });

  it('compares amounts as exact decimals: equals, gt, lt and between (bounds included)', () => {
    expect(holds({ field: 'amount', op: 'equals', value: -4.5 })).toBe(true);
    expect(holds({ field: 'amount', op: 'equals', value: -4.51 })).toBe(false);
    expect(holds({ field: 'amount', op: 'gt', value: -5 })).toBe(true);
    expect(holds({ field: 'amount', op: 'gt', value: -4.5 })).toBe(false);
    expect(holds({ field: 'amount', op: 'lt', value: 0 })).toBe(true);
    expect(holds({ field: 'amount', op: 'lt', value: -4.5 })).toBe(false);
    expect(holds({ field: 'amount', op: 'between', value: [-4.5, 0] })).toBe(true);
    expect(holds({ field: 'amount', op: 'between', value: [-10, -4.5] })).toBe(true);
    expect(holds({ field: 'amount', op: 'between', value: [-4.4999, 0] })).toBe(false);
    expect(holds({ field: 'amount', op: 'gt', value: 0.1 }, { ...facts, amount: '0.1001' })).toBe(true);
  });

  it('matches ids with equals, ignoring case; a missing category matches no id', () => {
    expect(holds({ field: 'accountId', op: 'equals', value: ACCOUNT.toUpperCase() })).toBe(true);
    expect(holds({ field: 'categoryId', op: 'equals', value: CATEGORY })).toBe(false);
    expect(holds({ field: 'categoryId', op: 'equals', value: CATEGORY }, { ...facts, categoryId: CATEGORY })).toBe(true);
  });

  it('needs every condition with match all, one with match any', () => {
    const conditions: RuleCondition[] = [
      { field: 'name', op: 'contains', value: 'starbucks' },
      { field: 'amount', op: 'lt', value: -10 },
    ];
    expect(ruleMatches({ conditions, match: 'all' }, facts)).toBe(false);
    expect(ruleMatches({ conditions, match: 'any' }, facts)).toBe(true);
    expect(ruleMatches({ conditions: conditions.slice(0, 1), match: 'all' }, facts)).toBe(true);
  });
});

describe('rule actions', () => {
  it('merge in order: a later value of the same kind wins, tags add up as a set', () => {
    expect(
      changesOf([
        { type: 'setCategory', categoryId: 'a' },
        { type: 'addTags', tagIds: ['t2', 't1'] },
        { type: 'setCategory', categoryId: 'b' },
        { type: 'addTags', tagIds: ['t1', 't3'] },
        { type: 'setNotes', notes: 'coffee' },
        { type: 'setMerchantName', merchantName: 'Starbucks' },
      ]),
    ).toEqual({ categoryId: 'b', addTagIds: ['t1', 't2', 't3'], notes: 'coffee', merchantName: 'Starbucks' });
  });
});
