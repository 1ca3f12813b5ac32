import { BrokerageLinkError, type BrokerageLinkErrorCode } from '../../brokerage-link.port.js';

/**
 * An answer of SnapTrade's that is an error, or a call that got none. Built afresh from the
 * status and body: the client's own error carries the request's URL, whose query holds the
 * user's secret, and is never passed on or logged.
 */
export class SnapTradeApiError extends Error {
  constructor(
    readonly operation: string,
    readonly status: number | null,
    readonly errorCode: string | null,
    detail: string,
  ) {
    super(`SnapTrade ${operation}: ${status === null ? 'no answer' : status}${errorCode === null ? '' : ` (${errorCode})`} ${detail}`.trim());
    this.name = 'SnapTradeApiError';
  }
}

interface Failure {
  readonly status?: unknown;
  readonly code?: unknown;
  readonly responseBody?: unknown;
  readonly response?: { readonly status?: unknown; readonly data?: unknown };
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value.slice(0, 500) : typeof value === 'number' ? String(value) : null);

function bodyOf(raw: unknown): Record<string, unknown> {
  if (typeof raw === 'string') {
    try {
      return bodyOf(JSON.parse(raw));
    } catch {
      return {};
    }
  }
  return typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
}

/** SnapTrade's code when its request signature did not verify: the service's keys are wrong, not the user's secret. */
const SIGNATURE_REFUSED = '1076';

export interface ErrorMeanings {
  /** 404: what is not there (or not the user's). */
  readonly notFound?: BrokerageLinkErrorCode;
  /** 401/403 name the user's secret (every call made for a user). */
  readonly userScoped?: boolean;
}

export function snapTradeErrorOf(operation: string, error: unknown, meanings: ErrorMeanings = {}): Error {
  const failure = (typeof error === 'object' && error !== null ? error : {}) as Failure;
  const status = typeof failure.status === 'number' ? failure.status : typeof failure.response?.status === 'number' ? failure.response.status : null;
  const body = bodyOf(failure.responseBody ?? failure.response?.data);
  const code = text(body.code) ?? text(body.default_code);
  const detail = text(body.detail) ?? text(body.default_detail) ?? text(failure.code) ?? 'no answer';
  const apiError = new SnapTradeApiError(operation, status, code, detail);
  if (status === 402) return new BrokerageLinkError('AUTHORIZATION_DISABLED', apiError.message);
  if (status === 404 && meanings.notFound) return new BrokerageLinkError(meanings.notFound, apiError.message);
  if ((status === 401 || status === 403) && meanings.userScoped && code !== SIGNATURE_REFUSED) return new BrokerageLinkError('INVALID_USER', apiError.message);
  return apiError;
}

/** A SnapTrade call's answer, or its error in the port's terms (or as a SnapTradeApiError). */
export async function snapTradeCall<T>(operation: string, call: () => Promise<{ data: T }>, meanings: ErrorMeanings = {}): Promise<T> {
  try {
    return (await call()).data;
  } catch (error) {
    throw snapTradeErrorOf(operation, error, meanings);
  }
}
