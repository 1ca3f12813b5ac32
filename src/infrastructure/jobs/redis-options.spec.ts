import { isRedisConnectionError, reconnectDelayMs } from './redis-options.js';

describe('Redis reconnects', () => {
  it('back off from 100 ms, doubling, to at most 2 s, and never give up', () => {
    expect([1, 2, 3, 4, 5, 6, 50, 10_000].map(reconnectDelayMs)).toEqual([100, 200, 400, 800, 1600, 2000, 2000, 2000]);
  });
});

describe('a Redis connection error', () => {
  it('is a socket failure, a closed or unwritable connection, or a timed-out command', () => {
    expect(isRedisConnectionError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isRedisConnectionError({ code: 'ECONNRESET', message: 'read ECONNRESET' })).toBe(true);
    expect(isRedisConnectionError(new Error('Connection is closed.'))).toBe(true);
    expect(isRedisConnectionError(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe(true);
    expect(isRedisConnectionError(new Error('Command timed out'))).toBe(true);
  });

  it('is not a command Redis refused, nor a job that failed', () => {
    expect(isRedisConnectionError(new Error('ERR wrong number of arguments'))).toBe(false);
    expect(isRedisConnectionError(new Error('transient failure'))).toBe(false);
    expect(isRedisConnectionError('ECONNREFUSED')).toBe(false);
    expect(isRedisConnectionError(null)).toBe(false);
  });
});
