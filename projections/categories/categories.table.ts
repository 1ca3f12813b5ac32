import { type Kysely, sql } from 'kysely';
import { SYSTEM_TAXONOMY } from '../../src/modules/categories/system-taxonomy.js';
import { SYSTEM_TAXONOMY_ID_NAMESPACE } from '../../src/modules/categories/user-categories.js';

/** The system taxonomy as reference rows, the same for every user (filled from code when the schema is made). */
export interface SystemCategoryGroupsTable {
  system_key: string;
  name: string;
  order: number;
}

export interface SystemCategoriesTable {
  system_key: string;
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
  await sql`CREATE TABLE system_category_groups (system_key text PRIMARY KEY, name text NOT NULL, "order" integer NOT NULL)`.execute(db);
  await sql`
    CREATE TABLE system_categories (
      system_key text PRIMARY KEY,
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
  const groups = SYSTEM_TAXONOMY.map((group, order) => ({ system_key: group.systemKey, name: group.name, order }));
  const categories = SYSTEM_TAXONOMY.flatMap((group) =>
    group.categories.map((category, order) => ({ system_key: category.systemKey, group_key: group.systemKey, name: category.name, icon_key: category.iconKey, order })),
  );
  await sql`
    INSERT INTO system_category_groups (system_key, name, "order")
    SELECT system_key, name, "order" FROM jsonb_to_recordset(${JSON.stringify(groups)}::jsonb) AS r(system_key text, name text, "order" integer)`.execute(db);
  await sql`
    INSERT INTO system_categories (system_key, group_key, name, icon_key, "order")
    SELECT system_key, group_key, name, icon_key, "order"
      FROM jsonb_to_recordset(${JSON.stringify(categories)}::jsonb) AS r(system_key text, group_key text, name text, icon_key text, "order" integer)`.execute(db);
}

/**
 * `user_category_groups(user)` and `user_categories(user)`: one user's taxonomy as the API shows
 * it, the reference rows (under the ids `systemGroupId` / `systemCategoryId` give them) with the
 * user's edits over them, then the user's own. Readers join these instead of tables.
 * System rows date from the user's seeding if they were seeded, else from the user's sign-up.
 */
async function createTaxonomyFunctions(db: Kysely<unknown>): Promise<void> {
  const namespace = `\\x${SYSTEM_TAXONOMY_ID_NAMESPACE.replace(/-/g, '')}`;
  await sql`
    CREATE FUNCTION taxonomy_id(p_user uuid, p_kind text, p_key text) RETURNS uuid
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT encode(set_byte(set_byte(h, 6, (get_byte(h, 6) & 15) | 80), 8, (get_byte(h, 8) & 63) | 128), 'hex')::uuid
        FROM (SELECT substring(digest(${sql.lit(namespace)}::bytea || convert_to(p_user::text || ':' || p_kind || ':' || p_key, 'UTF8'), 'sha1') FROM 1 FOR 16)) AS d(h)
    $$`.execute(db);
  await sql`
    CREATE FUNCTION taxonomy_since(p_user uuid) RETURNS timestamptz
    LANGUAGE sql STABLE AS $$
      SELECT coalesce((SELECT seeded_at FROM category_taxonomies WHERE user_id = p_user), (SELECT created_at FROM users WHERE id = p_user), 'epoch')
    $$`.execute(db);
  await sql`
    CREATE FUNCTION user_category_groups(p_user uuid)
    RETURNS TABLE (id uuid, user_id uuid, name text, "order" integer, system_key text, created_at timestamptz, updated_at timestamptz)
    LANGUAGE sql STABLE AS $$
      SELECT taxonomy_id(p_user, 'group', s.system_key), p_user, s.name, s."order", s.system_key, since.at, since.at
        FROM system_category_groups s CROSS JOIN taxonomy_since(p_user) AS since(at)
      UNION ALL
      SELECT g.id, g.user_id, g.name, g."order", NULL, g.created_at, g.updated_at FROM category_groups g WHERE g.user_id = p_user
    $$`.execute(db);
  await sql`
    CREATE FUNCTION user_categories(p_user uuid)
    RETURNS TABLE (id uuid, user_id uuid, group_id uuid, name text, icon_key text, hidden boolean, exclude_from_insights boolean, "order" integer,
                   system_key text, created_at timestamptz, updated_at timestamptz)
    LANGUAGE sql STABLE AS $$
      SELECT taxonomy_id(p_user, 'category', s.system_key), p_user, coalesce(o.group_id, sg.id),
             coalesce(o.name, s.name), coalesce(o.icon_key, s.icon_key), coalesce(o.hidden, false), coalesce(o.exclude_from_insights, false),
             coalesce(o."order", s."order"), s.system_key, since.at, coalesce(o.updated_at, since.at)
        FROM system_categories s CROSS JOIN taxonomy_since(p_user) AS since(at)
        -- A group's id once per group, not once per category: each id is a SHA-1.
        JOIN (SELECT g.system_key, taxonomy_id(p_user, 'group', g.system_key) AS id FROM system_category_groups g) AS sg ON sg.system_key = s.group_key
        LEFT JOIN categories o ON o.user_id = p_user AND o.system_key = s.system_key
      UNION ALL
      SELECT c.id, c.user_id, c.group_id, c.name, c.icon_key, c.hidden, c.exclude_from_insights, c."order", NULL, c.created_at, c.updated_at
        FROM categories c WHERE c.user_id = p_user AND c.system_key IS NULL
    $$`.execute(db);
}
