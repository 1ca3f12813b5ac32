import { nameBasedId } from '../../core/ids.js';
import { SYSTEM_TAXONOMY } from './system-taxonomy.js';

/** The namespace of the name-based ids of system groups and categories. */
export const SYSTEM_TAXONOMY_ID_NAMESPACE = '6f1c4c1e-3b0a-4f57-9a61-2f3c2d1b7e10';

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
 * A system group's or category's id for one user: name-based on (user, systemKey), as it has been
 * since ids were first handed out (events and clients carry them), so it is known without a lookup.
 */
export const systemGroupId = (userId: string, groupSystemKey: string): string => nameBasedId(SYSTEM_TAXONOMY_ID_NAMESPACE, `${userId}:group:${groupSystemKey}`);
export const systemCategoryId = (userId: string, categorySystemKey: string): string => nameBasedId(SYSTEM_TAXONOMY_ID_NAMESPACE, `${userId}:category:${categorySystemKey}`);

/** A system group or category of the reference taxonomy, under one user's id for it; `order` is its place there. */
export interface SystemGroupOfUser {
  readonly id: string;
  readonly name: string;
  readonly order: number;
  readonly systemKey: string;
}
export interface SystemCategoryOfUser {
  readonly id: string;
  readonly groupId: string;
  readonly name: string;
  readonly iconKey: string;
  readonly order: number;
  readonly systemKey: string;
}
export interface SystemTaxonomyOfUser {
  readonly groups: ReadonlyMap<string, SystemGroupOfUser>;
  readonly categories: ReadonlyMap<string, SystemCategoryOfUser>;
  /** The ids in the reference taxonomy's order (groups, then every category group by group): what the read model's functions are given. */
  readonly groupIds: readonly string[];
  readonly categoryIds: readonly string[];
}

/** The reference taxonomy under one user's ids, by id (cached: ids cost a SHA-1 each). */
export function systemTaxonomyOf(userId: string): SystemTaxonomyOfUser {
  const cached = cache.get(userId);
  if (cached) return cached;
  const groups = new Map<string, SystemGroupOfUser>();
  const categories = new Map<string, SystemCategoryOfUser>();
  SYSTEM_TAXONOMY.forEach((group, groupOrder) => {
    const groupId = systemGroupId(userId, group.systemKey);
    groups.set(groupId, { id: groupId, name: group.name, order: groupOrder, systemKey: group.systemKey });
    group.categories.forEach((category, order) => {
      const id = systemCategoryId(userId, category.systemKey);
      categories.set(id, { id, groupId, name: category.name, iconKey: category.iconKey, order, systemKey: category.systemKey });
    });
  });
  const taxonomy = { groups, categories, groupIds: [...groups.keys()], categoryIds: [...categories.keys()] };
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(userId, taxonomy);
  return taxonomy;
}

const CACHE_LIMIT = 1000;
const cache = new Map<string, SystemTaxonomyOfUser>();
