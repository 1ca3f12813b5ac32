import { type Kysely, type Selectable, sql } from 'kysely';
import type { Database, RulesTable } from '../../infrastructure/database/schema.js';
import { RULE_BOUNDS, type Rule, type RuleAction, type RuleCondition, type RuleMatch } from './rule.js';

/** A rule's content as written: all of it on creation, any part of it on a change. */
export interface RuleContent {
  readonly name: string;
  readonly conditions: readonly RuleCondition[];
  readonly match: RuleMatch;
  readonly actions: readonly RuleAction[];
  readonly order: number;
}

export function ruleOf(row: Selectable<RulesTable>): Rule {
  return {
    id: row.id,
    name: row.name,
    conditions: row.conditions as RuleCondition[],
    match: row.match,
    actions: row.actions as RuleAction[],
    order: row.order,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * Inserts the rule unless the user has their quota of rules already (null then). Without an
 * order it goes last. One statement: two creations at once cannot both take the last place.
 */
export async function insertRule(db: Kysely<Database>, userId: string, id: string, content: Omit<RuleContent, 'order'> & { order?: number }, now: Date): Promise<Rule | null> {
  return db.transaction().execute(async (trx) => {
    // Serialises one user's creations, so the count below is the count the insert sees.
    await sql`SELECT pg_advisory_xact_lock(hashtext('rules'), hashtext(${userId}))`.execute(trx);
    const { count, last } = await trx
      .selectFrom('rules')
      .select([sql<number>`count(*)::int`.as('count'), sql<number | null>`max("order")`.as('last')])
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    if (count >= RULE_BOUNDS.rulesPerUser) return null;
    const row = await trx
      .insertInto('rules')
      .values({
        id,
        user_id: userId,
        name: content.name,
        conditions: JSON.stringify(content.conditions) as never,
        match: content.match,
        actions: JSON.stringify(content.actions) as never,
        order: content.order ?? (last === null ? 0 : last + 1),
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return ruleOf(row);
  });
}

export async function findRule(db: Kysely<Database>, userId: string, ruleId: string): Promise<Rule | undefined> {
  const row = await db.selectFrom('rules').selectAll().where('id', '=', ruleId).where('user_id', '=', userId).executeTakeFirst();
  return row && ruleOf(row);
}

/** The user's rules in the order they run: by `order`, then the older first. */
export async function listRules(db: Kysely<Database>, userId: string): Promise<Rule[]> {
  const rows = await db.selectFrom('rules').selectAll().where('user_id', '=', userId).orderBy('order').orderBy('created_at').orderBy('id').execute();
  return rows.map(ruleOf);
}

export async function updateRule(db: Kysely<Database>, userId: string, ruleId: string, changes: Partial<RuleContent>, now: Date): Promise<Rule | undefined> {
  const row = await db
    .updateTable('rules')
    .set({
      ...(changes.name === undefined ? {} : { name: changes.name }),
      ...(changes.conditions === undefined ? {} : { conditions: JSON.stringify(changes.conditions) as never }),
      ...(changes.match === undefined ? {} : { match: changes.match }),
      ...(changes.actions === undefined ? {} : { actions: JSON.stringify(changes.actions) as never }),
      ...(changes.order === undefined ? {} : { order: changes.order }),
      updated_at: now,
    })
    .where('id', '=', ruleId)
    .where('user_id', '=', userId)
    .returningAll()
    .executeTakeFirst();
  return row && ruleOf(row);
}

export async function deleteRule(db: Kysely<Database>, userId: string, ruleId: string): Promise<boolean> {
  const result = await db.deleteFrom('rules').where('id', '=', ruleId).where('user_id', '=', userId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Which of some users have any rule: the ones whose new transactions are worth a job. */
export async function usersWithRules(db: Kysely<Database>, userIds: readonly string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await db.selectFrom('rules').select('user_id').distinct().where('user_id', 'in', [...new Set(userIds)]).execute();
  return new Set(rows.map((row) => row.user_id));
}
