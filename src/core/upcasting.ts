import type { RecordedEvent } from './events.js';

/**
 * Turns a stored event of an older schema version into the next version's shape. Stored events
 * are never rewritten: every read passes through the chain until the event is current.
 */
export interface Upcaster {
  readonly type: string;
  readonly fromVersion: number;
  upcast(data: unknown): unknown;
}

export function upcastEvent(event: RecordedEvent, upcasters: readonly Upcaster[]): RecordedEvent {
  let current = event;
  for (;;) {
    const next = upcasters.find((upcaster) => upcaster.type === current.type && upcaster.fromVersion === current.metadata.schemaVersion);
    if (!next) return current;
    current = { ...current, data: next.upcast(current.data), metadata: { ...current.metadata, schemaVersion: next.fromVersion + 1 } };
  }
}
