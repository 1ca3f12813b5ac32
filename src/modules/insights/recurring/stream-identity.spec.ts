import { streamIdOf, uuidV5 } from './stream-identity.js';

describe('stream identity', () => {
  it('is a standard UUID v5', () => {
    // RFC 4122 DNS namespace; the value Python's uuid.uuid5 gives for the same name.
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'python.org')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
  });

  it('depends on account, direction, payee, frequency family and ordinal only', () => {
    const base = { accountId: 'acc-1', streamType: 'outflow', payeeKey: 'netflix', family: 'monthly', ordinal: 1 } as const;

    expect(streamIdOf(base)).toBe(streamIdOf({ ...base }));
    expect(new Set([
      streamIdOf(base),
      streamIdOf({ ...base, accountId: 'acc-2' }),
      streamIdOf({ ...base, streamType: 'inflow' }),
      streamIdOf({ ...base, payeeKey: 'hulu' }),
      streamIdOf({ ...base, family: 'annual' }),
      streamIdOf({ ...base, ordinal: 2 }),
    ]).size).toBe(6);
  });
});
