import { BankLinkError, type BankLinkErrorCode } from '../../bank-link.port.js';

/**
 * An answer of Plaid's that is an error (`{error_type, error_code, error_message, request_id}`),
 * or a call that got no answer. Built fresh from the response: the client's own error carries
 * the request's headers, the secret among them, and is never passed on or logged.
 */
export class PlaidApiError extends Error {
  constructor(
    readonly operation: string,
    readonly status: number | null,
    readonly errorType: string | null,
    readonly errorCode: string | null,
    message: string,
    readonly requestId: string | null,
  ) {
    super(`Plaid ${operation}: ${status === null ? '' : `${status} `}${errorCode ?? ''} ${message}`.replace(/\s+/g, ' ').trim());
    this.name = 'PlaidApiError';
  }
}

interface HttpFailure {
  readonly message?: unknown;
  readonly code?: unknown;
  readonly response?: { readonly status?: unknown; readonly data?: unknown };
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value.slice(0, 1000) : null);

export function plaidApiErrorOf(operation: string, error: unknown): PlaidApiError {
  const failure = (typeof error === 'object' && error !== null ? error : {}) as HttpFailure;
  const status = typeof failure.response?.status === 'number' ? failure.response.status : null;
  const data = (typeof failure.response?.data === 'object' && failure.response.data !== null ? failure.response.data : {}) as Record<string, unknown>;
  const message = text(data.error_message) ?? text(failure.code) ?? text(failure.message) ?? 'no answer';
  return new PlaidApiError(operation, status, text(data.error_type), text(data.error_code), message, text(data.request_id));
}

/** A Plaid call's answer, or its error as a PlaidApiError. */
export async function plaidCall<T>(operation: string, call: () => Promise<{ data: T }>): Promise<T> {
  try {
    return (await call()).data;
  } catch (error) {
    throw plaidApiErrorOf(operation, error);
  }
}

/** The port's error for a Plaid error code the caller can act on; any other stays a PlaidApiError (retried, or a 500). */
export function asBankLinkError(error: unknown, codes: Readonly<Record<string, BankLinkErrorCode>>): unknown {
  if (!(error instanceof PlaidApiError) || error.errorCode === null) return error;
  const code = codes[error.errorCode];
  return code === undefined ? error : new BankLinkError(code, error.message);
}

/** What an item's access token answers with once the item is gone or the token never was. */
export const ACCESS_TOKEN_ERRORS: Readonly<Record<string, BankLinkErrorCode>> = {
  INVALID_ACCESS_TOKEN: 'INVALID_ACCESS_TOKEN',
  ITEM_NOT_FOUND: 'INVALID_ACCESS_TOKEN',
  ITEM_LOGIN_REQUIRED: 'ITEM_LOGIN_REQUIRED',
};
