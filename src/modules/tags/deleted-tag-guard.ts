import { comparePositions, type GlobalPosition, type RecordedEvent } from '../../core/events.js';
import type { EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { type CommandContext, handleCommand } from '../../infrastructure/event-store/handle-command.js';
import { type TransactionEvent, transactionStreamId } from '../transactions/transaction.js';
import { transactionDecider } from '../transactions/transaction.decider.js';
import { tagStreamId } from './tag.js';

/**
 * Run after tags were applied to a transaction: a tag deleted between the check and the append
 * is taken off again (actor `system`, caused by the deletion). A deletion appended after this
 * re-read comes after the TagApplied in the global order, so the deletion's fan-out job — which
 * scans once the deletion is projected — finds it instead. Either way no transaction keeps it.
 * Returns the position of the last removal, if any.
 */
export async function detachTagsDeletedMeanwhile(store: EventStore, transactionId: string, appliedTagIds: readonly string[], context: CommandContext): Promise<GlobalPosition | null> {
  let last: GlobalPosition | null = null;
  const deletions = await tagDeletions(store, appliedTagIds);
  for (const [tagId, deletion] of deletions) {
    const outcome = await handleCommand(
      store,
      transactionStreamId(transactionId),
      transactionDecider,
      { type: 'ChangeTransactionTags', transactionId, add: [], remove: [tagId], lock: false },
      { userId: context.userId, actor: 'system', requestId: context.requestId, correlationId: context.correlationId ?? context.requestId, causationId: deletion.id, now: context.now },
      'Transaction',
    );
    if (outcome.position && (!last || comparePositions(outcome.position, last) > 0)) last = outcome.position;
  }
  return last;
}

export function laterPosition(a: GlobalPosition | null, b: GlobalPosition | null): GlobalPosition | null {
  if (!a) return b;
  if (!b) return a;
  return comparePositions(a, b) >= 0 ? a : b;
}

/** The tag ids some transaction events put on: at creation or by TagApplied. */
export function tagIdsAppliedBy(events: readonly TransactionEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'TagApplied' ? event.data.tagIds : event.type === 'TransactionCreated' ? event.data.tagIds : []));
}

/** Which of some tags have been deleted, read from their streams (not the read model, which may lag). */
export async function deletedTagIds(store: EventStore, tagIds: readonly string[]): Promise<string[]> {
  return [...(await tagDeletions(store, tagIds)).keys()];
}

/** Each deleted tag's TagDeleted, by tag id: one read of the store for all of them, only the deletions returned. */
export async function tagDeletions(store: Pick<EventStore, 'firstEventOfType'>, tagIds: readonly string[]): Promise<Map<string, RecordedEvent>> {
  const unique = [...new Set(tagIds)];
  const found = await store.firstEventOfType(unique.map(tagStreamId), 'TagDeleted');
  return new Map(unique.flatMap((tagId) => {
    const deletion = found.get(tagStreamId(tagId));
    return deletion ? [[tagId, deletion] as const] : [];
  }));
}
