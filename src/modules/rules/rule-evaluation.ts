import { compareDecimals, toDecimalString } from '../../core/money.js';
import type { RuleFieldChanges } from '../transactions/transaction.decider.js';
import type { RuleAction, RuleCondition, RuleMatch } from './rule.js';

/** What a rule's conditions look at: a transaction's current values (`amount` a decimal string). */
export interface TransactionFacts {
  readonly name: string;
  readonly merchantName: string | null;
  readonly amount: string;
  readonly accountId: string;
  readonly categoryId: string | null;
}

/** What a matching rule asks for, its actions merged in order (a later one of the same type wins; tags add up). */
export type RuleChanges = RuleFieldChanges;

export function ruleMatches(rule: { readonly conditions: readonly RuleCondition[]; readonly match: RuleMatch }, facts: TransactionFacts): boolean {
  const holds = (condition: RuleCondition) => conditionHolds(condition, facts);
  return rule.match === 'any' ? rule.conditions.some(holds) : rule.conditions.every(holds);
}

export function conditionHolds(condition: RuleCondition, facts: TransactionFacts): boolean {
  switch (condition.field) {
    case 'name':
    case 'merchantName':
      return textHolds(condition.op, facts[condition.field], condition.value);
    case 'amount':
      return amountHolds(condition.op, facts.amount, condition.value);
    case 'accountId':
    case 'categoryId':
      return condition.op === 'equals' && typeof condition.value === 'string' && facts[condition.field]?.toLowerCase() === condition.value.toLowerCase();
  }
}

/** Case-insensitive and literal: no patterns, so a value is matched as the user typed it. */
function textHolds(op: RuleCondition['op'], actual: string | null, expected: RuleCondition['value']): boolean {
  if (actual === null || typeof expected !== 'string') return false;
  const text = actual.toLocaleLowerCase('en');
  const wanted = expected.toLocaleLowerCase('en');
  switch (op) {
    case 'contains':
      return text.includes(wanted);
    case 'equals':
      return text === wanted;
    case 'startsWith':
      return text.startsWith(wanted);
    case 'endsWith':
      return text.endsWith(wanted);
    default:
      return false;
  }
}

/** Compared as exact decimals, the bounds of `between` included. */
function amountHolds(op: RuleCondition['op'], amount: string, expected: RuleCondition['value']): boolean {
  if (op === 'between') {
    if (!Array.isArray(expected)) return false;
    const [min, max] = expected as readonly [number, number];
    return compareDecimals(amount, toDecimalString(min)) >= 0 && compareDecimals(amount, toDecimalString(max)) <= 0;
  }
  if (typeof expected !== 'number') return false;
  const comparison = compareDecimals(amount, toDecimalString(expected));
  return op === 'equals' ? comparison === 0 : op === 'gt' ? comparison > 0 : op === 'lt' ? comparison < 0 : false;
}

export function changesOf(actions: readonly RuleAction[]): RuleChanges {
  let changes: RuleChanges = {};
  for (const action of actions) {
    switch (action.type) {
      case 'setCategory':
        changes = { ...changes, categoryId: action.categoryId };
        break;
      case 'setMerchantName':
        changes = { ...changes, merchantName: action.merchantName };
        break;
      case 'setNotes':
        changes = { ...changes, notes: action.notes };
        break;
      case 'addTags':
        changes = { ...changes, addTagIds: [...new Set([...(changes.addTagIds ?? []), ...action.tagIds])].sort() };
        break;
    }
  }
  return changes;
}
