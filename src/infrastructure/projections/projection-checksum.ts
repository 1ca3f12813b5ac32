import { type Kysely, sql } from 'kysely';
import type { Database } from '../database/schema.js';

/**
 * A table's rows as one checksum that does not depend on their order: the md5 of each row's text
 * (its columns in table order, less the excluded ones), as two 64-bit halves summed over the rows.
 * Two tables with the same rows, however stored, have the same checksum; a changed value, a
 * missing or an extra row changes it.
 */
export interface TableChecksum {
  readonly rows: number;
  readonly checksum: string;
}

/** The table's columns in their order, less `excluded`. */
export async function checksumColumns(db: Kysely<Database>, schema: string, table: string, excluded: readonly string[] = []): Promise<string[]> {
  const result = await sql<{ column: string }>`
    SELECT a.attname AS column FROM pg_attribute a
     WHERE a.attrelid = ${`${quoteIdent(schema)}.${quoteIdent(table)}`}::regclass AND a.attnum > 0 AND NOT a.attisdropped
     ORDER BY a.attnum`.execute(db);
  return result.rows.map((row) => row.column).filter((column) => !excluded.includes(column));
}

export async function checksumTable(db: Kysely<Database>, schema: string, table: string, columns: readonly string[]): Promise<TableChecksum> {
  const row = sql.join(columns.map((column) => sql.id('t', column)));
  const result = await sql<{ rows: string; checksum: string }>`
    SELECT count(*)::text AS rows,
           md5(coalesce(sum(('x' || substr(h, 1, 16))::bit(64)::bigint::numeric), 0)::text || ':' ||
               coalesce(sum(('x' || substr(h, 17, 16))::bit(64)::bigint::numeric), 0)::text) AS checksum
      FROM (SELECT md5(ROW(${row})::text) AS h FROM ${sql.id(schema, table)} t) hashed`.execute(db);
  return { rows: Number(result.rows[0].rows), checksum: result.rows[0].checksum };
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
