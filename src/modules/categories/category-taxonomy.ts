import { unhandled } from '../../core/exhaustive.js';
import type { DomainEvent } from '../../core/events.js';
import { seededTaxonomyOf } from './user-categories.js';

/**
 * One user's category taxonomy — its groups and categories — is one aggregate on one stream,
 * `category-taxonomy-<userId>`: a name unique within its group and a group that must exist are
 * rules across categories, so they hold under concurrency only if every change to them is decided
 * on the same stream (decision 0011).
 */
export type CategoryTaxonomySeeded = DomainEvent<'CategoryTaxonomySeeded', { userId: string; taxonomyVersion: number }>;
export type CategoryGroupCreated = DomainEvent<'CategoryGroupCreated', { groupId: string; name: string; order: number }>;
export type CategoryCreated = DomainEvent<'CategoryCreated', { categoryId: string; groupId: string; name: string; iconKey: string; order: number }>;

/** The fields an edit may change; an event carries only those whose value changed. */
export interface CategoryChanges {
  name?: string;
  iconKey?: string;
  hidden?: boolean;
  excludeFromInsights?: boolean;
  order?: number;
  groupId?: string;
}
export type CategoryEdited = DomainEvent<'CategoryEdited', { categoryId: string; changes: CategoryChanges }>;

export type CategoryTaxonomyEvent = CategoryTaxonomySeeded | CategoryGroupCreated | CategoryCreated | CategoryEdited;
export const CATEGORY_TAXONOMY_EVENT_TYPES: ReadonlyArray<CategoryTaxonomyEvent['type']> = ['CategoryTaxonomySeeded', 'CategoryGroupCreated', 'CategoryCreated', 'CategoryEdited'];

export interface CategoryGroupState {
  readonly id: string;
  readonly name: string;
  readonly order: number;
  readonly systemKey: string | null;
}

export interface CategoryState {
  readonly id: string;
  readonly groupId: string;
  readonly name: string;
  readonly iconKey: string;
  readonly hidden: boolean;
  readonly excludeFromInsights: boolean;
  readonly order: number;
  readonly systemKey: string | null;
}

export interface CategoryTaxonomyState {
  readonly seededVersion: number | null;
  readonly groups: ReadonlyMap<string, CategoryGroupState>;
  readonly categories: ReadonlyMap<string, CategoryState>;
}

export const initialCategoryTaxonomyState = (): CategoryTaxonomyState => ({ seededVersion: null, groups: new Map(), categories: new Map() });

export function evolveCategoryTaxonomy(state: CategoryTaxonomyState, event: CategoryTaxonomyEvent): CategoryTaxonomyState {
  switch (event.type) {
    case 'CategoryTaxonomySeeded': {
      const seeded = seededTaxonomyOf(event.data.userId, event.data.taxonomyVersion);
      const groups = new Map(state.groups);
      const categories = new Map(state.categories);
      for (const group of seeded.groups) groups.set(group.id, group);
      for (const category of seeded.categories) categories.set(category.id, { ...category, hidden: false, excludeFromInsights: false });
      return { seededVersion: event.data.taxonomyVersion, groups, categories };
    }
    case 'CategoryGroupCreated':
      return { ...state, groups: new Map(state.groups).set(event.data.groupId, { id: event.data.groupId, name: event.data.name, order: event.data.order, systemKey: null }) };
    case 'CategoryCreated': {
      const { categoryId, groupId, name, iconKey, order } = event.data;
      const created: CategoryState = { id: categoryId, groupId, name, iconKey, order, hidden: false, excludeFromInsights: false, systemKey: null };
      return { ...state, categories: new Map(state.categories).set(categoryId, created) };
    }
    case 'CategoryEdited': {
      const category = state.categories.get(event.data.categoryId);
      if (!category) return state;
      return { ...state, categories: new Map(state.categories).set(category.id, { ...category, ...event.data.changes }) };
    }
    default: {
      unhandled(event);
      return state;
    }
  }
}

/** Names compare without case and surrounding space: "Coffee" and " coffee" are one name. */
export function sameCategoryName(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

export const CATEGORY_TAXONOMY_STREAM_PREFIX = 'category-taxonomy-';

export function categoryTaxonomyStreamId(userId: string): string {
  return `${CATEGORY_TAXONOMY_STREAM_PREFIX}${userId}`;
}
