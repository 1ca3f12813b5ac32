import { type Compilable, type Kysely, sql } from 'kysely';
import type { Database } from '../database/schema.js';
import type { AppendGuard } from './event-store.port.js';

/** A guard's condition: that `query` finds a row. */
export function exists(db: Kysely<Database>, query: Compilable & object): AppendGuard['condition'] {
  return sql<boolean>`EXISTS (${query})`.compile(db);
}
