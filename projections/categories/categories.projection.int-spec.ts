import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { DatabaseConnection } from '../../src/infrastructure/database/database.js';
import type { PostgresEventStore } from '../../src/infrastructure/event-store/postgres-event-store.js';
import type { CheckpointWatch } from '../../src/infrastructure/projections/checkpoint-watch.js';
import { type CategoryTaxonomyEvent, categoryTaxonomyStreamId } from '../../src/modules/categories/category-taxonomy.js';
import { SYSTEM_TAXONOMY } from '../../src/modules/categories/system-taxonomy.js';
import { systemCategoryId, systemGroupId } from '../../src/modules/categories/user-categories.js';
import { type ProjectionFixture, startProjectionFixture } from '../../test/support/projection-fixture.js';
import { categoriesProjection } from './categories.projection.js';
import { userCategoriesCall, userCategoryGroupsCall } from '../../src/modules/categories/category-directory.js';

let fixture: ProjectionFixture;
let connection: DatabaseConnection;
let store: PostgresEventStore;
let watch: CheckpointWatch;

beforeAll(async () => {
  fixture = await startProjectionFixture(categoriesProjection);
  ({ connection, store, watch } = fixture);
});
afterAll(() => fixture.close());

const systemCategories = SYSTEM_TAXONOMY.flatMap((group) => group.categories).length;

async function append(userId: string, occurredAt: string, events: CategoryTaxonomyEvent[]): Promise<void> {
  const metadata = { userId, actor: 'user' as const, requestId: 'r', causationId: 'r', correlationId: 'r', occurredAt, schemaVersion: 1 };
  const result = await store.appendToStream(categoryTaxonomyStreamId(userId), events.map((event) => ({ ...event, metadata })), 'any');
  expect(await watch.waitFor(result.position, 10_000)).toBe(true);
}

const categoriesOf = async (userId: string) => (await sql<Record<string, unknown>>`SELECT * FROM ${userCategoriesCall(userId)} ORDER BY id`.execute(connection.db)).rows;
const groupsOf = async (userId: string) => (await sql<Record<string, unknown>>`SELECT * FROM ${userCategoryGroupsCall(userId)} ORDER BY id`.execute(connection.db)).rows;

describe('categories projection', () => {
  it('joins the reference taxonomy, under ids the code derives, for a user with no events at all', async () => {
    const userId = randomUUID();
    const [categories, groups] = [await categoriesOf(userId), await groupsOf(userId)];
    expect([categories.length, groups.length]).toEqual([systemCategories, SYSTEM_TAXONOMY.length]);
    expect(categories.find((row) => row.system_key === 'FOOD_AND_DRINK_COFFEE')).toMatchObject({
      id: systemCategoryId(userId, 'FOOD_AND_DRINK_COFFEE'),
      group_id: systemGroupId(userId, 'FOOD_AND_DRINK'),
      name: 'Coffee',
      hidden: false,
    });
    expect(groups.find((row) => row.system_key === 'TRAVEL')).toMatchObject({ id: systemGroupId(userId, 'TRAVEL'), name: 'Travel', order: 14 });
  });

  it('reads a retired seeding event as the date of the system rows, and keeps edits of system categories over the reference rows', async () => {
    const userId = randomUUID();
    const coffee = systemCategoryId(userId, 'FOOD_AND_DRINK_COFFEE');
    const [hobbies, painting] = [randomUUID(), randomUUID()];
    await append(userId, '2026-01-01T00:00:00.000Z', [{ type: 'CategoryTaxonomySeeded', data: { userId, taxonomyVersion: 1 } }]);
    await append(userId, '2026-02-01T00:00:00.000Z', [{ type: 'CategoryEdited', data: { categoryId: coffee, changes: { name: 'Cafe', hidden: true } } }]);
    await append(userId, '2026-03-01T00:00:00.000Z', [
      { type: 'CategoryGroupCreated', data: { groupId: hobbies, name: 'Hobbies', order: 16 } },
      { type: 'CategoryCreated', data: { categoryId: painting, groupId: hobbies, name: 'Painting', iconKey: 'brush', order: 0 } },
      { type: 'CategoryEdited', data: { categoryId: coffee, changes: { groupId: hobbies, order: 1 } } },
    ]);
    const categories = await categoriesOf(userId);
    expect(categories).toHaveLength(systemCategories + 1);
    expect(categories.find((row) => row.id === coffee)).toMatchObject({
      name: 'Cafe', icon_key: 'coffee', hidden: true, exclude_from_insights: false, group_id: hobbies, order: 1, system_key: 'FOOD_AND_DRINK_COFFEE',
      created_at: new Date('2026-01-01T00:00:00.000Z'), updated_at: new Date('2026-03-01T00:00:00.000Z'),
    });
    expect(categories.find((row) => row.system_key === 'TRAVEL_FLIGHTS')).toMatchObject({ created_at: new Date('2026-01-01T00:00:00.000Z'), updated_at: new Date('2026-01-01T00:00:00.000Z') });
    expect(categories.find((row) => row.id === painting)).toMatchObject({ name: 'Painting', group_id: hobbies, system_key: null, created_at: new Date('2026-03-01T00:00:00.000Z') });
    expect((await groupsOf(userId)).find((row) => row.id === hobbies)).toMatchObject({ name: 'Hobbies', order: 16, system_key: null });
    // One row for the edited system category, one for their own: nothing was copied per user.
    const stored = await connection.db.selectFrom('categories').select(['id', 'system_key']).where('user_id', '=', userId).orderBy('system_key').execute();
    expect(stored).toEqual([{ id: coffee, system_key: 'FOOD_AND_DRINK_COFFEE' }, { id: painting, system_key: null }]);
  });

  // Last: once the rebuilt version is live it supersedes the current one, whose runner then stops.
  it('rebuilds the same rows from the events alone (a new version replays $all)', async () => {
    const tables = await fixture.rebuildBeside({ category_taxonomies: 'user_id', category_groups: 'id', categories: 'id', system_categories: 'system_key', system_category_groups: 'system_key' });
    for (const { original, rebuilt } of tables) expect([rebuilt.length > 0, rebuilt]).toEqual([true, original]);
  });
});
