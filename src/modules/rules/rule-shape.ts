import type { ValidationIssue } from '../../core/errors.js';
import { isMoneyAmount } from '../../core/money.js';
import { AMOUNT_OPS, ID_OPS, RULE_BOUNDS, type RuleAction, type RuleCondition, TEXT_OPS } from './rule.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What each action type takes: its one property besides `type`. */
export const ACTION_PROPERTY = { setCategory: 'categoryId', addTags: 'tagIds', setMerchantName: 'merchantName', setNotes: 'notes' } as const;

/**
 * What the request's types alone cannot say about conditions: the op must suit the field and the
 * value suit the op — text of 1 to 200 characters, an amount (a `[min, max]` pair with min ≤ max
 * for `between`), a uuid for an id field. Each issue at its element's path.
 */
export function conditionIssues(conditions: readonly RuleCondition[]): ValidationIssue[] {
  return conditions.flatMap((condition, index): ValidationIssue[] => {
    const at = (key: string) => ['conditions', index, key];
    const { field, op, value } = condition;
    if (field === 'name' || field === 'merchantName') {
      if (!(TEXT_OPS as readonly string[]).includes(op)) return [{ code: 'invalid_enum_value', message: `${field} takes ${TEXT_OPS.join(', ')}`, path: at('op') }];
      if (typeof value !== 'string' || value.length < 1 || value.length > RULE_BOUNDS.text) return [{ code: 'custom', message: `a ${field} condition's value is text of 1 to ${RULE_BOUNDS.text} characters`, path: at('value') }];
      return [];
    }
    if (field === 'amount') {
      if (!(AMOUNT_OPS as readonly string[]).includes(op)) return [{ code: 'invalid_enum_value', message: `amount takes ${AMOUNT_OPS.join(', ')}`, path: at('op') }];
      if (op === 'between') {
        const pair = Array.isArray(value) && value.length === 2 && value.every(isMoneyAmount);
        if (!pair || (value as readonly number[])[0] > (value as readonly number[])[1]) return [{ code: 'custom', message: 'between takes [min, max]: two amounts (at most 4 decimals), min ≤ max', path: at('value') }];
        return [];
      }
      if (!isMoneyAmount(value)) return [{ code: 'custom', message: 'an amount condition\'s value is a number with at most 4 decimals', path: at('value') }];
      return [];
    }
    if (!(ID_OPS as readonly string[]).includes(op)) return [{ code: 'invalid_enum_value', message: `${field} takes equals`, path: at('op') }];
    if (typeof value !== 'string' || !UUID.test(value)) return [{ code: 'invalid_string', message: `a ${field} condition's value is a uuid`, path: at('value') }];
    return [];
  });
}

/** Each action carries its own property and no other action's. */
export function actionIssues(actions: readonly (Partial<Record<string, unknown>> & { type: RuleAction['type'] })[]): ValidationIssue[] {
  return actions.flatMap((action, index): ValidationIssue[] => {
    const wanted = ACTION_PROPERTY[action.type];
    const issues: ValidationIssue[] = [];
    if (action[wanted] === undefined) issues.push({ code: 'invalid_type', message: `${action.type} takes ${wanted}`, path: ['actions', index, wanted] });
    for (const other of Object.values(ACTION_PROPERTY)) {
      if (other !== wanted && action[other] !== undefined) issues.push({ code: 'unrecognized_keys', message: `${action.type} does not take ${other}`, path: ['actions', index, other] });
    }
    return issues;
  });
}

/** The action as stored: its type and its one property (ids in lower case). */
export function normalisedAction(action: Partial<Record<string, unknown>> & { type: RuleAction['type'] }): RuleAction {
  switch (action.type) {
    case 'setCategory':
      return { type: 'setCategory', categoryId: String(action.categoryId).toLowerCase() };
    case 'addTags':
      return { type: 'addTags', tagIds: (action.tagIds as string[]).map((tagId) => tagId.toLowerCase()) };
    case 'setMerchantName':
      return { type: 'setMerchantName', merchantName: String(action.merchantName) };
    case 'setNotes':
      return { type: 'setNotes', notes: String(action.notes) };
  }
}

export function normalisedCondition(condition: RuleCondition): RuleCondition {
  const isId = condition.field === 'accountId' || condition.field === 'categoryId';
  return { field: condition.field, op: condition.op, value: isId && typeof condition.value === 'string' ? condition.value.toLowerCase() : condition.value };
}
