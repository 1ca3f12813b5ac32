/** Errors the domain raises; the HTTP layer maps each to its documented status and body. */
export class DomainRuleError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: 400 | 409 | 412 | 415 | 422 = 400,
  ) {
    super(message);
    this.name = 'DomainRuleError';
  }
}

export class NotFoundError extends Error {
  constructor(readonly resource: string) {
    super(`${resource} not found`);
    this.name = 'NotFoundError';
  }
}

export interface ValidationIssue {
  readonly code: 'invalid_type' | 'too_small' | 'too_big' | 'invalid_enum_value' | 'invalid_string' | 'unrecognized_keys' | 'custom';
  readonly message: string;
  readonly path: ReadonlyArray<string | number>;
}

export class ValidationFailedError extends Error {
  constructor(readonly issues: readonly ValidationIssue[]) {
    super(issues.map((issue) => issue.message).join('; '));
    this.name = 'ValidationFailedError';
  }
}

export function invalid(path: ReadonlyArray<string | number>, message: string, code: ValidationIssue['code'] = 'custom'): ValidationFailedError {
  return new ValidationFailedError([{ code, message, path }]);
}

/**
 * A write was stored, but a read model its response reads has not shown it in time (`lagging`)
 * or could not apply it (`parked`): the response says so instead of answering from stale state.
 */
export class WriteNotVisibleError extends Error {
  constructor(
    readonly reason: 'lagging' | 'parked',
    readonly readModel: string,
  ) {
    super(
      reason === 'lagging'
        ? `Your change was saved, but the ${readModel} read model has not caught up with it yet: read it again in a moment.`
        : `Your change was saved, but the ${readModel} read model could not apply it; operators have been alerted. Quote the request id.`,
    );
    this.name = 'WriteNotVisibleError';
  }
}
