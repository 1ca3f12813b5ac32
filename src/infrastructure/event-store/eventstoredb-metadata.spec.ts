import type { EventMetadata } from '../../core/events.js';
import { fromEventStoreDbMetadata, toEventStoreDbMetadata } from './eventstoredb-metadata.js';

const metadata: EventMetadata = {
  userId: 'user-1',
  actor: 'system',
  requestId: 'request-1',
  causationId: 'event-0',
  correlationId: 'request-0',
  occurredAt: '2026-11-23T10:00:00.000Z',
  schemaVersion: 2,
};

describe('EventStoreDB metadata', () => {
  it('writes correlation and causation under EventStoreDB’s own $correlationId and $causationId, and every other field as it is', () => {
    expect(toEventStoreDbMetadata(metadata)).toEqual({
      userId: 'user-1',
      actor: 'system',
      requestId: 'request-1',
      $causationId: 'event-0',
      $correlationId: 'request-0',
      occurredAt: '2026-11-23T10:00:00.000Z',
      schemaVersion: 2,
    });
  });

  it('reads them back under the port’s names, also from events written before the $ names', () => {
    expect(fromEventStoreDbMetadata({ ...toEventStoreDbMetadata(metadata) })).toEqual(metadata);
    expect(fromEventStoreDbMetadata({ ...metadata })).toEqual(metadata);
  });
});
