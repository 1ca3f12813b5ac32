import { type ValidationIssue, ValidationFailedError } from './errors.js';

/**
 * A 422 issue raised by a named rule of the domain (`INVALID_SUBTYPE`, `CREDIT_LIMIT_NOT_ALLOWED`):
 * code `custom`, the rule's stable name in `params.code`. Clients match on `params.code`; the
 * message is for people and may change.
 */
export interface RuleViolationIssue extends ValidationIssue {
  readonly code: 'custom';
  readonly params: Readonly<{ code: string }>;
}

export function ruleViolationIssue(path: ReadonlyArray<string | number>, rule: string, message: string): RuleViolationIssue {
  return { code: 'custom', message, path, params: { code: rule } };
}

export function ruleViolated(path: ReadonlyArray<string | number>, rule: string, message: string): ValidationFailedError {
  return new ValidationFailedError([ruleViolationIssue(path, rule, message)]);
}

export const INVALID_SUBTYPE = 'INVALID_SUBTYPE';
export const CREDIT_LIMIT_NOT_ALLOWED = 'CREDIT_LIMIT_NOT_ALLOWED';
