import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { createLogger } from './logger.js';
import { reportProcessFailures } from './process-failures.js';

/** A parsed log line, walked field by field in the assertions. */
type LogLine = { readonly [field: string]: LogLine };

function setUp() {
  const chunks: string[] = [];
  const log = createLogger(
    'info',
    new Writable({
      write(chunk, _encoding, done) {
        chunks.push(String(chunk));
        done();
      },
    }),
  );
  const target = new EventEmitter();
  const exits: number[] = [];
  reportProcessFailures(log, target as never, (code) => exits.push(code));
  const lines = () => chunks.join('').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as LogLine);
  return { target, exits, lines };
}

describe('process-level failures', () => {
  it('log an unhandled rejection at error level with its error, and keep the process running', () => {
    const { target, exits, lines } = setUp();
    target.emit('unhandledRejection', Object.assign(new Error('background task failed'), { code: 'ECONNRESET', token: 'rejection-secret' }));
    target.emit('unhandledRejection', 'a plain string reason');
    expect(exits).toEqual([]);
    const [first, second] = lines();
    expect(first).toMatchObject({ level: 50, msg: 'unhandled promise rejection', err: { type: 'Error', message: 'background task failed', code: 'ECONNRESET', token: '[redacted]' } });
    expect(first.err.stack).toContain('background task failed');
    expect(second).toMatchObject({ level: 50, err: 'a plain string reason' });
  });

  it('log an uncaught exception at fatal level, then exit with 1', () => {
    const { target, exits, lines } = setUp();
    target.emit('uncaughtException', new Error('invariant broken'));
    expect(exits).toEqual([1]);
    expect(lines()[0]).toMatchObject({ level: 60, msg: 'uncaught exception: exiting', err: { message: 'invariant broken' } });
  });
});
