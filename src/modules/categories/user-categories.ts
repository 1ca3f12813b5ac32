import { nameBasedId } from '../../core/ids.js';
import { SYSTEM_TAXONOMY, type SystemCategoryGroup, TAXONOMY_VERSIONS } from './system-taxonomy.js';

const NAMESPACE = '6f1c4c1e-3b0a-4f57-9a61-2f3c2d1b7e10';

export interface CategorySummary {
  readonly id: string;
  readonly name: string;
  readonly iconKey: string;
  readonly systemKey: string | null;
  readonly groupId: string;
  readonly groupName: string;
  readonly groupSystemKey: string | null;
}

/** A seeded group or category as the taxonomy version defines it: `order` is its place there. */
export interface SeededCategoryGroup {
  readonly id: string;
  readonly name: string;
  readonly order: number;
  readonly systemKey: string;
}
export interface SeededCategory {
  readonly id: string;
  readonly groupId: string;
  readonly name: string;
  readonly iconKey: string;
  readonly order: number;
  readonly systemKey: string;
}

export const systemGroupId = (userId: string, groupSystemKey: string): string => nameBasedId(NAMESPACE, `${userId}:group:${groupSystemKey}`);
export const systemCategoryId = (userId: string, categorySystemKey: string): string => nameBasedId(NAMESPACE, `${userId}:category:${categorySystemKey}`);

/**
 * One user's groups and categories as taxonomy `version` seeds them. Ids derive from (user,
 * systemKey), so a seeded category's id is known without a lookup, is the same on every rebuild
 * of the read model, and stays what transactions created before seeding existed already name.
 */
export function seededTaxonomyOf(userId: string, version: number): { groups: SeededCategoryGroup[]; categories: SeededCategory[] } {
  const taxonomy: readonly SystemCategoryGroup[] | undefined = TAXONOMY_VERSIONS[version];
  if (!taxonomy) throw new Error(`Unknown category taxonomy version ${version}`);
  const groups: SeededCategoryGroup[] = [];
  const categories: SeededCategory[] = [];
  taxonomy.forEach((group, groupOrder) => {
    const groupId = systemGroupId(userId, group.systemKey);
    groups.push({ id: groupId, name: group.name, order: groupOrder, systemKey: group.systemKey });
    group.categories.forEach((category, order) => {
      categories.push({ id: systemCategoryId(userId, category.systemKey), groupId, name: category.name, iconKey: category.iconKey, order, systemKey: category.systemKey });
    });
  });
  return { groups, categories };
}

/**
 * The system categories as seeded, before any edit: what a transaction shows for a user whose
 * taxonomy is not in the read model yet (its category ids predate seeding).
 */
export function systemCategoriesOf(userId: string): ReadonlyMap<string, CategorySummary> {
  const cached = cache.get(userId);
  if (cached) return cached;
  const categories = new Map<string, CategorySummary>();
  for (const group of SYSTEM_TAXONOMY) {
    const groupId = systemGroupId(userId, group.systemKey);
    for (const category of group.categories) {
      const id = systemCategoryId(userId, category.systemKey);
      categories.set(id, { id, name: category.name, iconKey: category.iconKey, systemKey: category.systemKey, groupId, groupName: group.name, groupSystemKey: group.systemKey });
    }
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(userId, categories);
  return categories;
}

export function categoryIdsInGroups(userId: string, groupSystemKeys: readonly string[]): string[] {
  const wanted = new Set(groupSystemKeys);
  return [...systemCategoriesOf(userId).values()].filter((category) => category.groupSystemKey !== null && wanted.has(category.groupSystemKey)).map((category) => category.id);
}

const CACHE_LIMIT = 1000;
const cache = new Map<string, ReadonlyMap<string, CategorySummary>>();
