import type { Kysely } from 'kysely';
import type { Database } from '../../../infrastructure/database/schema.js';
import { userCategories } from '../../categories/category-directory.js';
import type { AuditedEvent, AuditedFieldChange, TransactionAudit } from './transaction-audit.report.js';

/** Who the user is, and what the ids the history holds are called now. */
export interface AuditNames {
  readonly user: { readonly email: string | null; readonly name: string | null } | null;
  readonly categories: ReadonlyMap<string, string>;
  /** A deleted tag keeps its last name. */
  readonly tags: ReadonlyMap<string, string>;
}

/** A change of the category or the tags, with the names beside the ids: a string (or null: unknown) per id. */
export interface NamedFieldChange extends AuditedFieldChange {
  readonly beforeName?: string | null | (string | null)[];
  readonly afterName?: string | null | (string | null)[];
}

export interface NamedAuditedEvent extends Omit<AuditedEvent, 'changes'> {
  readonly changes: readonly NamedFieldChange[];
}

export interface NamedTransactionAudit extends Omit<TransactionAudit, 'events'> {
  readonly user: { readonly id: string; readonly email: string | null; readonly name: string | null };
  readonly events: readonly NamedAuditedEvent[];
}

/** The ids of categories and tags the audit's changes name, to look up. */
export function namedIdsOf(audit: TransactionAudit): { categories: string[]; tags: string[] } {
  const categories = new Set<string>();
  const tags = new Set<string>();
  for (const change of audit.events.flatMap((event) => event.changes)) {
    for (const value of [change.before, change.after]) {
      if (change.field === 'category' && typeof value === 'string') categories.add(value);
      if (change.field === 'tags' && Array.isArray(value)) for (const id of value) if (typeof id === 'string') tags.add(id);
    }
  }
  return { categories: [...categories], tags: [...tags] };
}

/** The audit with names beside the ids of its user, categories and tags; pure. */
export function nameAudit(audit: TransactionAudit, names: AuditNames): NamedTransactionAudit {
  const nameOf = (field: string, value: unknown): string | null | (string | null)[] | undefined => {
    if (field === 'category' && typeof value === 'string') return names.categories.get(value) ?? null;
    if (field === 'tags' && Array.isArray(value)) return value.map((id) => (typeof id === 'string' ? (names.tags.get(id) ?? null) : null));
    return undefined;
  };
  const named = (change: AuditedFieldChange): NamedFieldChange => {
    const beforeName = 'before' in change ? nameOf(change.field, change.before) : undefined;
    const afterName = 'after' in change ? nameOf(change.field, change.after) : undefined;
    return { ...change, ...(beforeName === undefined ? {} : { beforeName }), ...(afterName === undefined ? {} : { afterName }) };
  };
  return {
    ...audit,
    user: { id: audit.userId, email: names.user?.email ?? null, name: names.user?.name ?? null },
    events: audit.events.map((event) => ({ ...event, changes: event.changes.map(named) })),
  };
}

/**
 * What the read models call them now: the user's email and name, their categories and their
 * tags, deleted ones included.
 */
export async function auditNamesOf(db: Kysely<Database>, audit: TransactionAudit): Promise<AuditNames> {
  const { categories, tags } = namedIdsOf(audit);
  const [user, categoryRows, tagRows] = await Promise.all([
    db.selectFrom('users').select(['email', 'name']).where('id', '=', audit.userId).executeTakeFirst(),
    categories.length === 0 ? [] : db.selectFrom(userCategories(audit.userId, 'c')).select(['id', 'name']).where('id', 'in', categories).execute(),
    tags.length === 0 ? [] : db.selectFrom('tags').select(['id', 'name']).where('user_id', '=', audit.userId).where('id', 'in', tags).execute(),
  ]);
  return { user: user ?? null, categories: new Map(categoryRows.map((row) => [row.id, row.name])), tags: new Map(tagRows.map((row) => [row.id, row.name])) };
}
