import { type GlobalPosition, START_POSITION } from '../../core/events.js';
import type { EventStore } from '../event-store/event-store.port.js';
import type { ProjectionDefinition } from '../projections/projection.js';
import type { ProjectionVersionStatus } from '../projections/projection-status.js';

export interface ProjectionReading {
  readonly projection: string;
  readonly version: number;
  /** The prepare part of the last position applied (0: nothing applied yet). */
  readonly checkpoint: number;
  readonly parked: number;
  /** Events behind the head; null when the head is unknown or the store cannot tell from positions. */
  readonly lag: number | null;
}

/**
 * One reading per version this release runs, from the rows of `projection_versions` and the head:
 * a version with no row yet has applied and parked nothing; a superseded one is not expected to
 * follow the head, so its lag is 0; otherwise the lag comes from the positions alone, as in
 * `projections status` (no event is read).
 */
export async function projectionReadings(
  rows: readonly ProjectionVersionStatus[],
  projections: readonly Pick<ProjectionDefinition, 'name' | 'version'>[],
  head: GlobalPosition | null,
  eventsBetween: EventStore['approximateEventsBetween'],
): Promise<ProjectionReading[]> {
  const readings: ProjectionReading[] = [];
  for (const { name, version } of projections) {
    const row = rows.find((candidate) => candidate.name === name && candidate.version === version);
    const position = row?.position ?? START_POSITION;
    const lag = head === null ? null : row?.state === 'superseded' ? 0 : await eventsBetween(position, head).catch(() => null);
    readings.push({ projection: name, version, checkpoint: Number(position.prepare), parked: row?.parked ?? 0, lag });
  }
  return readings;
}
