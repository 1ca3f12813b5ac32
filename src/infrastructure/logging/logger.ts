import type { LoggerService } from '@nestjs/common';
import { type Logger, pino } from 'pino';
import type { LogLevel } from '../../config/config.js';
import { redactSecrets } from './redact.js';

const SECRET_QUERY_PARAMETER = /([?&](?:code|state|code_verifier|access_token|refresh_token|id_token|token|client_secret|key)=)[^&#"\\\s]*/gi;

/** A URL anywhere in a line (a message, an error, a nested field) keeps its shape but not its secrets. */
export function scrubSecretQueryParameters(line: string): string {
  return line.replace(SECRET_QUERY_PARAMETER, '$1[redacted]');
}

/**
 * Secrets never reach a log line, wherever they hide: secret-named fields at any depth (headers,
 * nested objects, errors' own fields), and secret query parameters of any URL in the text.
 */
export function createLogger(level: LogLevel, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'ledgerline' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Every line's fields, the base and every child logger's bindings, walked to any depth (see
      // redact.ts); then whatever URL is left in the text loses its secret query values.
      formatters: { log: redactSecrets, bindings: redactSecrets },
      onChild: redactChildBindings,
      // Errors were already serialized (and walked) by the log formatter.
      serializers: { err: (value: unknown) => value },
      hooks: { streamWrite: scrubSecretQueryParameters },
    },
    destination as never,
  );
}

/**
 * pino applies no formatter to a child's bindings: they are kept pre-serialised (a `,"k":v` JSON
 * fragment under pino's chindings symbol), so they are walked once here, when the child is made.
 */
function redactChildBindings(child: Logger): void {
  const holder = child as unknown as Record<symbol, string | undefined>;
  const fragment = holder[pino.symbols.chindingsSym];
  if (!fragment) return;
  const walked = JSON.stringify(redactSecrets(JSON.parse(`{${fragment.slice(1)}}`) as Record<string, unknown>));
  holder[pino.symbols.chindingsSym] = walked === '{}' ? '' : `,${walked.slice(1, -1)}`;
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
