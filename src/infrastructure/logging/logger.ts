import type { LoggerService } from '@nestjs/common';
import { type Logger, pino } from 'pino';
import type { LogLevel } from '../../config/config.js';

/** Secrets never reach a log line, wherever they hide. */
export const REDACTED_PATHS = [
  'authorization',
  'cookie',
  'key',
  'apiKey',
  'token',
  'accessToken',
  'refreshToken',
  'password',
  '*.authorization',
  '*.cookie',
  '*.key',
  '*.apiKey',
  '*.token',
  '*.accessToken',
  '*.refreshToken',
  '*.password',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
];

export function createLogger(level: LogLevel, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'ledgerline' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
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
