import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { FIRST_ACCEPTED_DATE, isAcceptedIsoDate, LAST_ACCEPTED_DATE } from '../../core/calendar-day.js';
import { isMoneyAmount, MONEY_MAGNITUDE_LIMIT } from '../../core/money.js';
import { INSTANT_FORMAT, parseInstant } from '../../core/instant.js';

/** A real calendar day written YYYY-MM-DD within the accepted range (see calendar-day.ts). */
export function isCalendarDate(value: unknown): value is string {
  return isAcceptedIsoDate(value);
}

/** A real calendar day written YYYY-MM-DD, 1900-01-01..2199-12-31 (2026-02-30 is refused). */
export function IsCalendarDate(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isCalendarDate',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be a real date written YYYY-MM-DD between ${FIRST_ACCEPTED_DATE} and ${LAST_ACCEPTED_DATE}`, ...options },
      validator: { validate: (value: unknown) => isCalendarDate(value) },
    });
}

/** An ISO 8601 timestamp with its offset, naming an instant within the accepted days (see instant.ts). */
export function IsInstant() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isInstant',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be ${INSTANT_FORMAT}` },
      validator: { validate: (value: unknown) => parseInstant(value) !== null },
    });
}

export const MAX_AMOUNT = MONEY_MAGNITUDE_LIMIT;

/**
 * A finite JSON number with at most 4 decimals and a magnitude below 10^13 (see money.ts), checked
 * in three steps so the issue says which: not a number (invalid_type), too large (too_big), too
 * many decimals (custom).
 */
export function IsMoneyAmount() {
  return (target: object, propertyName: string) => {
    const check = (name: string, message: string, validate: (value: number) => boolean) =>
      registerDecorator({
        name,
        target: target.constructor,
        propertyName,
        options: { message: `${propertyName} ${message}` },
        validator: { validate: (value: unknown) => typeof value === 'number' && validate(value) },
      });
    check('isNumber', 'must be a number', (value) => Number.isFinite(value));
    check('moneyMagnitude', 'must be greater than -10^13 and less than 10^13', (value) => Math.abs(value) < MONEY_MAGNITUDE_LIMIT);
    check('moneyDecimals', 'must have at most 4 decimal places (as JSON writes the number: 0.30000000000000004 has 17)', (value) => isMoneyAmount(value));
  };
}

/**
 * A field checked by a named rule of the domain (UPPER_SNAKE, e.g. `INVALID_SUBTYPE`). The
 * validation pipe reports it as a `custom` issue with `params: {code: rule}`, the same issue the
 * decider raises, so a client sees one shape whichever layer refuses first.
 */
export function FollowsRule(rule: string, holds: (value: unknown, request: Record<string, unknown>) => boolean, message: (request: Record<string, unknown>) => string) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: rule,
      target: target.constructor,
      propertyName,
      options: { message: (args: ValidationArguments) => message(args.object as Record<string, unknown>) },
      validator: { validate: (value: unknown, args?: ValidationArguments) => holds(value, (args?.object ?? {}) as Record<string, unknown>) },
    });
}

export const isRuleName = (constraint: string): boolean => /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(constraint);

// Without the u flag a regex sees UTF-16 code units, so a surrogate is lone when its partner is missing.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Text PostgreSQL and JSON can hold: no NUL (text and jsonb refuse U+0000) and no lone UTF-16
 * surrogate (not a character: UTF-8 cannot encode it, jsonb refuses its escape).
 */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}

export const UNSTORABLE_TEXT_MESSAGE = 'must not contain a NUL character (U+0000) or a lone UTF-16 surrogate';
