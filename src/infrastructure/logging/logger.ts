import type { LoggerService } from '@nestjs/common';
import { type Logger, pino } from 'pino';
import type { LogLevel } from '../../config/config.js';

/** Field names that hold a secret: credentials, session ids, and every part of an OAuth sign-in. */
const SECRET_FIELDS = [
  'authorization',
  'cookie',
  'set-cookie',
  'key',
  'apiKey',
  'token',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'idToken',
  'id_token',
  'password',
  'secret',
  'clientSecret',
  'client_secret',
  'session',
  'sessionId',
  'sessionToken',
  'code',
  'authorizationCode',
  'state',
  'codeVerifier',
  'code_verifier',
  'verifier',
];

/**
 * Secrets never reach a log line, wherever they hide: at the top, one level down (`*.token`),
 * in request headers. `code` is redacted only at the top and under `query`, so an error's
 * own `err.code` (ECONNREFUSED, a PostgreSQL code) stays readable.
 */
export const REDACTED_PATHS = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.filter((field) => field !== 'code').map((field) => `*.${field}`),
  'query.code',
  '*.query.code',
  '*.query.state',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

const SECRET_QUERY_PARAMETER = /([?&](?:code|state|code_verifier|access_token|refresh_token|id_token|token|client_secret|key)=)[^&#"\\\s]*/gi;

/** A URL anywhere in a line (a message, an error, a nested field) keeps its shape but not its secrets. */
export function scrubSecretQueryParameters(line: string): string {
  return line.replace(SECRET_QUERY_PARAMETER, '$1[redacted]');
}

export function createLogger(level: LogLevel, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'ledgerline' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      hooks: { streamWrite: scrubSecretQueryParameters },
    },
    destination as never,
  );
}

/** Nest's own messages go through the same JSON logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pinoLogger: Logger) {}
  log(message: unknown, context?: string) {
    this.pinoLogger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.pinoLogger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.pinoLogger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.pinoLogger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.pinoLogger.trace({ context }, String(message));
  }
}
