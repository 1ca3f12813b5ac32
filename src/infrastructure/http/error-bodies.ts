import type { ValidationIssue } from '../../core/errors.js';

/** The three error shapes of api-decisions.md §Errors, and nothing else, ever reach a client. */
export const nestedError = (code: string, message: string) => ({ error: { code, message } });
export const flatError = (code: string, error: string) => ({ code, error });
export const validationError = (issues: readonly ValidationIssue[]) => ({ success: false, error: { name: 'ValidationError', issues } });

export const UNAUTHORIZED_MESSAGE = 'Invalid or expired token';
