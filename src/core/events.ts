/** Events are plain data: `{type, data}` when new, plus where and when once recorded. */
export interface DomainEvent<Type extends string = string, Data = unknown> {
  readonly type: Type;
  readonly data: Data;
}

export type Actor = 'user' | 'system';

export interface EventMetadata {
  readonly userId: string;
  readonly actor: Actor;
  readonly requestId: string;
  readonly causationId: string;
  readonly correlationId: string;
  readonly occurredAt: string;
  readonly schemaVersion: number;
  /** The Idempotency-Key of the request that appended it, when it sent one. */
  readonly idempotencyKey?: string;
  /** The rule whose change it is (actor `system`), when a rule made it (decision 0042). */
  readonly ruleId?: string;
}

/**
 * A point in the store's single global order. PostgreSQL: commit = the appending transaction's
 * xid8, prepare = the row's sequence number; EventStoreDB: its own commit/prepare positions.
 * Compared lexicographically; see docs/decisions/0001-event-store-ordering.md.
 */
export interface GlobalPosition {
  readonly commit: bigint;
  readonly prepare: bigint;
}

export const START_POSITION: GlobalPosition = { commit: 0n, prepare: 0n };

export function comparePositions(a: GlobalPosition, b: GlobalPosition): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export function formatPosition(position: GlobalPosition): string {
  return `${position.commit}/${position.prepare}`;
}

export function parsePosition(text: string): GlobalPosition {
  const match = /^(\d+)\/(\d+)$/.exec(text);
  if (!match) throw new Error(`Not a global position: ${text}`);
  return { commit: BigInt(match[1]), prepare: BigInt(match[2]) };
}

export interface RecordedEvent<Event extends DomainEvent = DomainEvent> {
  readonly id: string;
  readonly streamId: string;
  /** 0-based revision of the event within its stream. */
  readonly revision: bigint;
  readonly position: GlobalPosition;
  readonly type: Event['type'];
  readonly data: Event['data'];
  readonly metadata: EventMetadata;
  /**
   * The read-model versions (`name@version`) this event was projected into by the transaction that
   * appended it (inline projections, PostgreSQL store): the daemon leaves it out of those.
   */
  readonly appliedInline?: readonly string[];
}

export type ExpectedRevision = bigint | 'no_stream' | 'any';

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(`Stream ${streamId}: expected revision ${String(expected)}, found ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}
