import type { Kysely } from 'kysely';
import type { ValidationIssue } from '../../core/errors.js';
import type { Database } from '../../infrastructure/database/schema.js';
import { isCategoryOf } from '../categories/category-directory.js';
import { unusableTagIds, unusableTagMessage } from '../tags/tag-directory.js';
import type { RuleAction, RuleCondition } from './rule.js';

/**
 * The ids a rule names that are not the user's, each at its own path: categories (system or their
 * own, hidden ones included, as transactions take them), live unarchived tags, live accounts.
 * Read from the read models, which the user's own writes have reached (read-your-writes).
 */
export async function referenceIssues(db: Kysely<Database>, userId: string, rule: { readonly conditions?: readonly RuleCondition[]; readonly actions?: readonly RuleAction[] }): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  for (const [index, condition] of (rule.conditions ?? []).entries()) {
    const path = ['conditions', index, 'value'];
    if (condition.field === 'categoryId' && !(await isCategoryOf(db, userId, condition.value as string))) issues.push({ code: 'custom', message: 'names no category of yours', path });
    if (condition.field === 'accountId' && !(await isAccountOf(db, userId, condition.value as string))) issues.push({ code: 'custom', message: 'names no account of yours', path });
  }
  const actions = rule.actions ?? [];
  const unusable = await unusableTagIds(db, userId, actions.flatMap((action) => (action.type === 'addTags' ? action.tagIds : [])));
  for (const [index, action] of actions.entries()) {
    if (action.type === 'setCategory' && !(await isCategoryOf(db, userId, action.categoryId))) issues.push({ code: 'custom', message: 'categoryId names no category of yours', path: ['actions', index, 'categoryId'] });
    if (action.type !== 'addTags') continue;
    action.tagIds.forEach((tagId, position) => {
      const reason = unusable.get(tagId);
      if (reason) issues.push({ code: 'custom', message: unusableTagMessage(tagId, reason), path: ['actions', index, 'tagIds', position] });
    });
  }
  return issues;
}

async function isAccountOf(db: Kysely<Database>, userId: string, accountId: string): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('id').where('id', '=', accountId).where('user_id', '=', userId).where('deleted_at', 'is', null).executeTakeFirst();
  return row !== undefined;
}
