import { registerDecorator, type ValidationOptions } from 'class-validator';
import { parseIsoDate } from '../../core/calendar-day.js';
import { hasAtMostFourDecimals } from '../../core/money.js';

export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    parseIsoDate(value);
    return true;
  } catch {
    return false;
  }
}

/** A real calendar day written YYYY-MM-DD (2026-02-30 is refused). */
export function IsCalendarDate(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isCalendarDate',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be a date written YYYY-MM-DD`, ...options },
      validator: { validate: (value: unknown) => isCalendarDate(value) },
    });
}

export const MAX_AMOUNT = 1e13;

/** A finite JSON number with at most 4 decimals and a magnitude that fits numeric(19,4). */
export function IsMoneyAmount(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isNumber',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be a number with at most 4 decimal places, between -${MAX_AMOUNT} and ${MAX_AMOUNT}`, ...options },
      validator: {
        validate: (value: unknown) => typeof value === 'number' && hasAtMostFourDecimals(value) && Math.abs(value) < MAX_AMOUNT,
      },
    });
}
