import type { RecordedEvent } from './events.js';

/**
 * Turns a stored event of one type from one schema version into the next version's shape.
 * Stored events are never rewritten: every read passes through the chain until the event is current.
 */
export interface Upcaster {
  readonly type: string;
  readonly fromVersion: number;
  upcast(data: unknown): unknown;
}

/** An event written by a newer release than this one: its shape is unknown here. */
export class UnknownSchemaVersionError extends Error {
  constructor(type: string, stored: number, current: number) {
    super(`${type} schema version ${stored} is newer than this release's ${current}; a newer release wrote it`);
    this.name = 'UnknownSchemaVersionError';
  }
}

/**
 * Each event type has its own schema version: 1, plus one per upcaster of that type. The steps of
 * a type must run 1 → 2 → … without gaps, so an event stored at any version reaches the current one.
 */
export class UpcasterChain {
  private readonly stepsByType = new Map<string, Map<number, Upcaster>>();

  constructor(upcasters: readonly Upcaster[]) {
    for (const upcaster of upcasters) {
      const steps = this.stepsByType.get(upcaster.type) ?? new Map<number, Upcaster>();
      if (steps.has(upcaster.fromVersion)) throw new Error(`Two upcasters of ${upcaster.type} from version ${upcaster.fromVersion}`);
      steps.set(upcaster.fromVersion, upcaster);
      this.stepsByType.set(upcaster.type, steps);
    }
    for (const [type, steps] of this.stepsByType) {
      for (let version = 1; version <= steps.size; version += 1) {
        if (!steps.has(version)) throw new Error(`Upcasters of ${type} skip version ${version}: each step goes from one version to the next`);
      }
    }
  }

  /** The version new events of `type` are written with. */
  currentVersion(type: string): number {
    return (this.stepsByType.get(type)?.size ?? 0) + 1;
  }

  upcast(event: RecordedEvent): RecordedEvent {
    const current = this.currentVersion(event.type);
    const stored = event.metadata.schemaVersion;
    if (stored === current) return event;
    if (stored > current) throw new UnknownSchemaVersionError(event.type, stored, current);
    const steps = this.stepsByType.get(event.type) as Map<number, Upcaster>;
    let data = event.data;
    for (let version = Math.max(stored, 1); version < current; version += 1) data = (steps.get(version) as Upcaster).upcast(data);
    return { ...event, data, metadata: { ...event.metadata, schemaVersion: current } };
  }
}
