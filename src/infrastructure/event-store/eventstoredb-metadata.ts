import type { EventMetadata } from '../../core/events.js';

/**
 * EventStoreDB reserves `$`-names in event metadata; `$correlationId` and `$causationId` are its
 * own (its `$by_correlation_id` projection and its UI read them). Our other fields keep their names.
 */
export interface EventStoreDbMetadata extends Omit<EventMetadata, 'correlationId' | 'causationId'> {
  readonly $correlationId: string;
  readonly $causationId: string;
}

export function toEventStoreDbMetadata({ correlationId, causationId, ...rest }: EventMetadata): EventStoreDbMetadata {
  return { ...rest, $correlationId: correlationId, $causationId: causationId };
}

/** Back to the port's names; metadata written before the `$` names (plain `correlationId`) reads the same. */
export function fromEventStoreDbMetadata(stored: Record<string, unknown>): EventMetadata {
  const { $correlationId, $causationId, ...rest } = stored;
  return {
    ...(rest as Omit<EventMetadata, 'correlationId' | 'causationId'>),
    correlationId: ($correlationId ?? rest.correlationId) as string,
    causationId: ($causationId ?? rest.causationId) as string,
  };
}
