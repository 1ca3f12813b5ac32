import { type Kysely, sql } from 'kysely';
import { SYSTEM_TAXONOMY } from '../../src/modules/categories/system-taxonomy.js';

/** The system taxonomy as reference rows, the same for every user (filled from code when the schema is made). */
export interface SystemCategoryGroupsTable {
  system_key: string;
  /** Its place in the reference taxonomy's order, from 1: where its id is in the array a reader passes. */
  ordinal: number;
  name: string;
  order: number;
}

export interface SystemCategoriesTable {
  system_key: string;
  /** Its place among all system categories in the reference taxonomy's order, from 1. */
  ordinal: number;
  group_key: string;
  name: string;
  icon_key: string;
  order: number;
}

/**
 * One row per user whose taxonomy stream has events: the revision of that stream applied last,
 * and when it was seeded, for users whose streams begin with the retired `CategoryTaxonomySeeded`.
 */
export interface CategoryTaxonomiesTable {
  user_id: string;
  seeded_at: Date | null;
  revision: number;
}

/** A user's own groups (system groups are reference rows). */
export interface CategoryGroupsTable {
  id: string;
  user_id: string;
  name: string;
  order: number;
  created_at: Date;
  updated_at: Date;
}

/**
 * A user's own categories (`system_key` null, every field set) and their edits of system
 * categories (`system_key` set: only the fields they changed are set; the rest read through).
 */
export interface CategoriesTable {
  id: string;
  user_id: string;
  system_key: string | null;
  group_id: string | null;
  name: string | null;
  icon_key: string | null;
  hidden: boolean | null;
  exclude_from_insights: boolean | null;
  order: number | null;
  created_at: Date;
  updated_at: Date;
}

export async function createCategoriesTables(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE system_category_groups (system_key text PRIMARY KEY, ordinal integer NOT NULL UNIQUE, name text NOT NULL, "order" integer NOT NULL)`.execute(db);
  await sql`
    CREATE TABLE system_categories (
      system_key text PRIMARY KEY,
      ordinal integer NOT NULL UNIQUE,
      group_key text NOT NULL REFERENCES system_category_groups,
      name text NOT NULL,
      icon_key text NOT NULL,
      "order" integer NOT NULL
    )`.execute(db);
  await fillSystemTaxonomy(db);
  await sql`
    CREATE TABLE category_taxonomies (
      user_id uuid PRIMARY KEY,
      seeded_at timestamptz,
      revision bigint NOT NULL
    )`.execute(db);
  await sql`
    CREATE TABLE category_groups (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      name text NOT NULL,
      "order" integer NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX category_groups_by_user ON category_groups (user_id)`.execute(db);
  await sql`
    CREATE TABLE categories (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      system_key text REFERENCES system_categories,
      group_id uuid,
      name text,
      icon_key text,
      hidden boolean,
      exclude_from_insights boolean,
      "order" integer,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CHECK (system_key IS NOT NULL OR (group_id IS NOT NULL AND name IS NOT NULL AND icon_key IS NOT NULL AND hidden IS NOT NULL AND exclude_from_insights IS NOT NULL AND "order" IS NOT NULL))
    )`.execute(db);
  await sql`CREATE INDEX categories_by_user ON categories (user_id, system_key)`.execute(db);
  await createTaxonomyFunctions(db);
}

async function fillSystemTaxonomy(db: Kysely<unknown>): Promise<void> {
  const groups = SYSTEM_TAXONOMY.map((group, order) => ({ system_key: group.systemKey, ordinal: order + 1, name: group.name, order }));
  const categories = SYSTEM_TAXONOMY.flatMap((group) => group.categories.map((category, order) => ({ system_key: category.systemKey, group_key: group.systemKey, name: category.name, icon_key: category.iconKey, order }))).map(
    (category, index) => ({ ...category, ordinal: index + 1 }),
  );
  await sql`
    INSERT INTO system_category_groups (system_key, ordinal, name, "order")
    SELECT system_key, ordinal, name, "order" FROM jsonb_to_recordset(${JSON.stringify(groups)}::jsonb) AS r(system_key text, ordinal integer, name text, "order" integer)`.execute(db);
  await sql`
    INSERT INTO system_categories (system_key, ordinal, group_key, name, icon_key, "order")
    SELECT system_key, ordinal, group_key, name, icon_key, "order"
      FROM jsonb_to_recordset(${JSON.stringify(categories)}::jsonb) AS r(system_key text, ordinal integer, group_key text, name text, icon_key text, "order" integer)`.execute(db);
}

/**
 * `user_category_groups(user, groupIds)` and `user_categories(user, groupIds, categoryIds)`: one
 * user's taxonomy as the API shows it, the reference rows under the user's ids for them with the
 * user's edits over them, then the user's own. The ids are name-based (`systemGroupId` /
 * `systemCategoryId`), computed and cached by the reader and given in the reference taxonomy's order
 * (`systemTaxonomyOf(user).groupIds` / `.categoryIds`), so no SHA-1 is computed per statement.
 * Readers join these instead of tables. System rows date from the user's seeding if they were
 * seeded, else from the user's sign-up.
 */
async function createTaxonomyFunctions(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION taxonomy_since(p_user uuid) RETURNS timestamptz
    LANGUAGE sql STABLE AS $$
      SELECT coalesce((SELECT seeded_at FROM category_taxonomies WHERE user_id = p_user), (SELECT created_at FROM users WHERE id = p_user), 'epoch')
    $$`.execute(db);
  await sql`
    CREATE FUNCTION user_category_groups(p_user uuid, p_group_ids uuid[])
    RETURNS TABLE (id uuid, user_id uuid, name text, "order" integer, system_key text, created_at timestamptz, updated_at timestamptz)
    LANGUAGE sql STABLE AS $$
      SELECT u.id, p_user, s.name, s."order", s.system_key, since.at, since.at
        FROM unnest(p_group_ids) WITH ORDINALITY AS u(id, ordinal)
        JOIN system_category_groups s ON s.ordinal = u.ordinal
        CROSS JOIN taxonomy_since(p_user) AS since(at)
      UNION ALL
      SELECT g.id, g.user_id, g.name, g."order", NULL, g.created_at, g.updated_at FROM category_groups g WHERE g.user_id = p_user
    $$`.execute(db);
  await sql`
    CREATE FUNCTION user_categories(p_user uuid, p_group_ids uuid[], p_category_ids uuid[])
    RETURNS TABLE (id uuid, user_id uuid, group_id uuid, name text, icon_key text, hidden boolean, exclude_from_insights boolean, "order" integer,
                   system_key text, created_at timestamptz, updated_at timestamptz)
    LANGUAGE sql STABLE AS $$
      SELECT u.id, p_user, coalesce(o.group_id, g.id),
             coalesce(o.name, s.name), coalesce(o.icon_key, s.icon_key), coalesce(o.hidden, false), coalesce(o.exclude_from_insights, false),
             coalesce(o."order", s."order"), s.system_key, since.at, coalesce(o.updated_at, since.at)
        FROM unnest(p_category_ids) WITH ORDINALITY AS u(id, ordinal)
        JOIN system_categories s ON s.ordinal = u.ordinal
        JOIN (SELECT sg.system_key, gu.id FROM unnest(p_group_ids) WITH ORDINALITY AS gu(id, ordinal) JOIN system_category_groups sg ON sg.ordinal = gu.ordinal) AS g
          ON g.system_key = s.group_key
        CROSS JOIN taxonomy_since(p_user) AS since(at)
        LEFT JOIN categories o ON o.user_id = p_user AND o.system_key = s.system_key
      UNION ALL
      SELECT c.id, c.user_id, c.group_id, c.name, c.icon_key, c.hidden, c.exclude_from_insights, c."order", NULL, c.created_at, c.updated_at
        FROM categories c WHERE c.user_id = p_user AND c.system_key IS NULL
    $$`.execute(db);
}
