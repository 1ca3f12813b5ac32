import { type Kysely, sql } from 'kysely';

/** One row per seeded user: the taxonomy version and the revision of its stream applied last. */
export interface CategoryTaxonomiesTable {
  user_id: string;
  taxonomy_version: number;
  revision: number;
}

export interface CategoryGroupsTable {
  id: string;
  user_id: string;
  name: string;
  order: number;
  system_key: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface CategoriesTable {
  id: string;
  user_id: string;
  group_id: string;
  name: string;
  icon_key: string;
  hidden: boolean;
  exclude_from_insights: boolean;
  order: number;
  system_key: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function createCategoriesTables(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE category_taxonomies (
      user_id uuid PRIMARY KEY,
      taxonomy_version integer NOT NULL,
      revision bigint NOT NULL
    )`.execute(db);
  await sql`
    CREATE TABLE category_groups (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      name text NOT NULL,
      "order" integer NOT NULL,
      system_key text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX category_groups_by_user ON category_groups (user_id, system_key)`.execute(db);
  await sql`
    CREATE TABLE categories (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      group_id uuid NOT NULL,
      name text NOT NULL,
      icon_key text NOT NULL,
      hidden boolean NOT NULL,
      exclude_from_insights boolean NOT NULL,
      "order" integer NOT NULL,
      system_key text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX categories_by_user ON categories (user_id, group_id)`.execute(db);
}
