import { type Kysely, sql } from 'kysely';

export interface TagsTable {
  id: string;
  user_id: string;
  name: string;
  color: string;
  archived_at: Date | null;
  /** Set by TagDeleted: the row stays so that reads can tell a deleted tag from an unknown one. */
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
  revision: number;
}

export async function createTagsTable(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE tags (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      name text NOT NULL,
      color text NOT NULL,
      archived_at timestamptz,
      deleted_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      revision bigint NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX tags_by_user ON tags (user_id, lower(name)) WHERE deleted_at IS NULL`.execute(db);
}
