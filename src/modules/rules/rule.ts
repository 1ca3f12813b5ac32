/** Rules (decision 0042): a user's configuration, kept in the `rules` table, not in events. */

export const RULE_TEXT_FIELDS = ['name', 'merchantName'] as const;
export const RULE_ID_FIELDS = ['accountId', 'categoryId'] as const;
export const RULE_FIELDS = [...RULE_TEXT_FIELDS, 'amount', ...RULE_ID_FIELDS] as const;
export type RuleField = (typeof RULE_FIELDS)[number];

export const TEXT_OPS = ['contains', 'equals', 'startsWith', 'endsWith'] as const;
export const AMOUNT_OPS = ['equals', 'gt', 'lt', 'between'] as const;
export const ID_OPS = ['equals'] as const;
export const RULE_OPS = [...new Set([...TEXT_OPS, ...AMOUNT_OPS])] as const;
export type RuleOp = (typeof TEXT_OPS)[number] | (typeof AMOUNT_OPS)[number];

export const RULE_MATCHES = ['all', 'any'] as const;
export type RuleMatch = (typeof RULE_MATCHES)[number];

/** `amount` values are numbers (a `[min, max]` pair for `between`), text and id values strings. */
export interface RuleCondition {
  readonly field: RuleField;
  readonly op: RuleOp;
  readonly value: string | number | readonly [number, number];
}

export const RULE_ACTION_TYPES = ['setCategory', 'addTags', 'setMerchantName', 'setNotes'] as const;
export type RuleAction =
  | { readonly type: 'setCategory'; readonly categoryId: string }
  | { readonly type: 'addTags'; readonly tagIds: readonly string[] }
  | { readonly type: 'setMerchantName'; readonly merchantName: string }
  | { readonly type: 'setNotes'; readonly notes: string };

export interface Rule {
  readonly id: string;
  readonly name: string;
  readonly conditions: readonly RuleCondition[];
  readonly match: RuleMatch;
  readonly actions: readonly RuleAction[];
  readonly order: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const RULE_BOUNDS = { name: 100, conditions: 20, actions: 10, text: 200, tagIds: 100, rulesPerUser: 100 } as const;
