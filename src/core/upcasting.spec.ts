import type { RecordedEvent } from './events.js';
import { upcastEvent, type Upcaster } from './upcasting.js';

const stored = (schemaVersion: number, data: unknown): RecordedEvent => ({
  id: 'e1',
  streamId: 'transaction-1',
  revision: 0n,
  position: { commit: 1n, prepare: 1n },
  type: 'TransactionCreated',
  data,
  metadata: { userId: 'u', actor: 'user', requestId: 'r', causationId: 'r', correlationId: 'r', occurredAt: '2026-11-22T00:00:00.000Z', schemaVersion },
});

const upcasters: Upcaster[] = [
  { type: 'TransactionCreated', fromVersion: 1, upcast: (data) => ({ ...(data as object), currency: 'USD' }) },
  { type: 'TransactionCreated', fromVersion: 2, upcast: ({ amount, ...rest }: { amount: number }) => ({ ...rest, amount: String(amount) }) },
];

describe('upcasting', () => {
  it('carries an old event through every version to the current shape, leaving the stored one alone', () => {
    const old = stored(1, { amount: -12.5 });
    const current = upcastEvent(old, upcasters);
    expect(current.data).toEqual({ amount: '-12.5', currency: 'USD' });
    expect(current.metadata.schemaVersion).toBe(3);
    expect(old.data).toEqual({ amount: -12.5 });
  });

  it('leaves a current event as it is', () => {
    const event = stored(3, { amount: '1' });
    expect(upcastEvent(event, upcasters)).toBe(event);
  });
});
