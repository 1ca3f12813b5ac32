import type { EventStore } from '../../infrastructure/event-store/event-store.port.js';

/**
 * Which of some tag ids name a tag of this user. A tag is its own stream (`tag-<id>`), begun by
 * the user who created it; another user's tag is, to this user, no tag at all.
 */
export async function unknownTagIds(store: EventStore, userId: string, tagIds: readonly string[]): Promise<string[]> {
  const streams = await Promise.all(tagIds.map(async (tagId) => ({ tagId, events: await store.readStream(`tag-${tagId}`) })));
  return streams.filter(({ events }) => events.length === 0 || events[0].metadata.userId !== userId).map(({ tagId }) => tagId);
}
