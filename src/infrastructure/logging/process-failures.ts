import type { Logger } from 'pino';

/** The part of `process` these handlers need, so a test can hand in its own. */
export interface FailingProcess {
  on(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
  on(event: 'uncaughtException', listener: (error: Error) => void): unknown;
}

/**
 * A promise nobody awaited that failed is logged at error level with its error, and the service
 * keeps serving (one bad background task must not end every user's requests). An exception
 * nobody caught leaves the process in an unknown state: it is logged at fatal level, then the
 * process exits non-zero for the supervisor to restart it.
 */
export function reportProcessFailures(log: Logger, target: FailingProcess = process, exit: (code: number) => void = (code) => process.exit(code)): void {
  target.on('unhandledRejection', (reason) => {
    log.error({ err: reason }, 'unhandled promise rejection');
  });
  target.on('uncaughtException', (error) => {
    log.fatal({ err: error }, 'uncaught exception: exiting');
    log.flush();
    exit(1);
  });
}
