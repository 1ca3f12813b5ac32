import { nameBasedId } from '../../core/ids.js';
import { SYSTEM_TAXONOMY } from './system-taxonomy.js';

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

/**
 * Every user's seeded taxonomy has ids derived from (user, systemKey), so a category id is
 * known without a lookup and stays the same when the categories read model is rebuilt.
 */
export function systemCategoriesOf(userId: string): ReadonlyMap<string, CategorySummary> {
  const cached = cache.get(userId);
  if (cached) return cached;
  const categories = new Map<string, CategorySummary>();
  for (const group of SYSTEM_TAXONOMY) {
    const groupId = nameBasedId(NAMESPACE, `${userId}:group:${group.systemKey}`);
    for (const category of group.categories) {
      const id = nameBasedId(NAMESPACE, `${userId}:category:${category.systemKey}`);
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
