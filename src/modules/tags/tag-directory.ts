import type { Kysely } from 'kysely';
import type { Database } from '../../infrastructure/database/schema.js';

export type UnusableReason = 'unknown' | 'archived';

/**
 * Which of some tag ids cannot be put on a transaction, and why: not a live tag of this user
 * (unknown, another user's, deleted) or archived. Read from the tags read model, which a user's
 * own tag writes have reached before they were answered (read-your-writes).
 */
export async function unusableTagIds(db: Kysely<Database>, userId: string, tagIds: readonly string[]): Promise<Map<string, UnusableReason>> {
  const unusable = new Map<string, UnusableReason>();
  if (tagIds.length === 0) return unusable;
  const rows = await db.selectFrom('tags').select(['id', 'archived_at']).where('user_id', '=', userId).where('deleted_at', 'is', null).where('id', 'in', [...new Set(tagIds)]).execute();
  const found = new Map(rows.map((row) => [row.id, row]));
  for (const tagId of tagIds) {
    const row = found.get(tagId);
    if (!row) unusable.set(tagId, 'unknown');
    else if (row.archived_at !== null) unusable.set(tagId, 'archived');
  }
  return unusable;
}

export function unusableTagMessage(tagId: string, reason: UnusableReason): string {
  return reason === 'archived' ? `tag ${tagId} is archived: unarchive it to apply it` : `tag ${tagId} is not one of your tags`;
}

export interface TagSummary {
  readonly id: string;
  readonly name: string;
  readonly color: string;
}

/** The live (not deleted) tags among some ids, for showing on transactions; archived ones included. */
export async function liveTagsById(db: Kysely<Database>, userId: string, tagIds: readonly string[]): Promise<Map<string, TagSummary>> {
  if (tagIds.length === 0) return new Map();
  const rows = await db.selectFrom('tags').select(['id', 'name', 'color']).where('user_id', '=', userId).where('deleted_at', 'is', null).where('id', 'in', [...new Set(tagIds)]).execute();
  return new Map(rows.map((row) => [row.id, row]));
}
