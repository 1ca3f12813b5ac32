import type { RecordedEvent } from './events.js';
import { UnknownSchemaVersionError, UpcasterChain } from './upcasting.js';

const stored = (type: string, schemaVersion: number, data: unknown): RecordedEvent => ({
  id: 'e1',
  streamId: 'transaction-1',
  revision: 0n,
  position: { commit: 1n, prepare: 1n },
  type,
  data,
  metadata: { userId: 'u', actor: 'user', requestId: 'r', causationId: 'r', correlationId: 'r', occurredAt: '2026-11-22T00:00:00.000Z', schemaVersion },
});

const chain = new UpcasterChain([
  { type: 'TransactionCreated', fromVersion: 2, upcast: ({ amount, ...rest }: { amount: number }) => ({ ...rest, amount: String(amount) }) },
  { type: 'TransactionCreated', fromVersion: 1, upcast: (data) => ({ ...(data as object), currency: 'USD' }) },
  { type: 'TagApplied', fromVersion: 1, upcast: (data) => ({ ...(data as object), source: 'user' }) },
]);

describe('upcasting', () => {
  it('gives each event type its own current version', () => {
    expect(chain.currentVersion('TransactionCreated')).toBe(3);
    expect(chain.currentVersion('TagApplied')).toBe(2);
    expect(chain.currentVersion('AccountDeleted')).toBe(1);
  });

  it('carries an event from any stored version of its type to the current shape, leaving the stored one alone', () => {
    const old = stored('TransactionCreated', 1, { amount: -12.5 });
    const current = chain.upcast(old);
    expect(current.data).toEqual({ amount: '-12.5', currency: 'USD' });
    expect(current.metadata.schemaVersion).toBe(3);
    expect(old.data).toEqual({ amount: -12.5 });
    expect(chain.upcast(stored('TransactionCreated', 2, { amount: 1, currency: 'EUR' })).data).toEqual({ amount: '1', currency: 'EUR' });
    expect(chain.upcast(stored('TagApplied', 1, {})).data).toEqual({ source: 'user' });
  });

  it('leaves a current event as it is', () => {
    const event = stored('TransactionCreated', 3, { amount: '1' });
    expect(chain.upcast(event)).toBe(event);
    const untouched = stored('AccountDeleted', 1, {});
    expect(chain.upcast(untouched)).toBe(untouched);
  });

  it('refuses an event written by a newer release rather than guess its shape', () => {
    expect(() => chain.upcast(stored('TagApplied', 3, {}))).toThrow(UnknownSchemaVersionError);
  });

  it('refuses a chain with a gap or two steps from one version', () => {
    expect(() => new UpcasterChain([{ type: 'X', fromVersion: 2, upcast: (data) => data }])).toThrow(/skip version 1/);
    expect(() => new UpcasterChain([{ type: 'X', fromVersion: 1, upcast: (data) => data }, { type: 'X', fromVersion: 1, upcast: (data) => data }])).toThrow(/Two upcasters/);
  });
});
