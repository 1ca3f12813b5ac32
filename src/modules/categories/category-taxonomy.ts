import { unhandled } from '../../core/exhaustive.js';
import type { DomainEvent } from '../../core/events.js';
import { systemTaxonomyOf } from './user-categories.js';

/**
 * One user's category taxonomy — its groups and categories — is one aggregate on one stream,
 * `category-taxonomy-<userId>`: a name unique within its group and a group that must exist are
 * rules across categories, so they hold under concurrency only if every change to them is decided
 * on the same stream (decision 0011). The system taxonomy is reference data under every user's
 * ids (decision 0034); the stream holds only what the user made or changed.
 */

/** Retired (decision 0034): appended by releases that seeded each user's taxonomy; still read, never written. */
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

/**
 * What a user's stream holds: their own groups and categories, and their edits of system
 * categories (by id). The system taxonomy itself is reference data (`withSystemTaxonomy`).
 */
export interface CategoryTaxonomyState {
  readonly groups: ReadonlyMap<string, CategoryGroupState>;
  readonly categories: ReadonlyMap<string, CategoryState>;
  readonly systemEdits: ReadonlyMap<string, CategoryChanges>;
}

export const initialCategoryTaxonomyState = (): CategoryTaxonomyState => ({ groups: new Map(), categories: new Map(), systemEdits: new Map() });

export function evolveCategoryTaxonomy(state: CategoryTaxonomyState, event: CategoryTaxonomyEvent): CategoryTaxonomyState {
  switch (event.type) {
    case 'CategoryTaxonomySeeded':
      // Retired: the system taxonomy is reference data now, the same whether or not a stream was seeded.
      return state;
    case 'CategoryGroupCreated':
      return { ...state, groups: new Map(state.groups).set(event.data.groupId, { id: event.data.groupId, name: event.data.name, order: event.data.order, systemKey: null }) };
    case 'CategoryCreated': {
      const { categoryId, groupId, name, iconKey, order } = event.data;
      const created: CategoryState = { id: categoryId, groupId, name, iconKey, order, hidden: false, excludeFromInsights: false, systemKey: null };
      return { ...state, categories: new Map(state.categories).set(categoryId, created) };
    }
    case 'CategoryEdited': {
      const { categoryId, changes } = event.data;
      const own = state.categories.get(categoryId);
      if (own) return { ...state, categories: new Map(state.categories).set(categoryId, { ...own, ...changes }) };
      // Not one of theirs: the decider only edits categories it knows, so a system one.
      return { ...state, systemEdits: new Map(state.systemEdits).set(categoryId, { ...state.systemEdits.get(categoryId), ...changes }) };
    }
    default: {
      unhandled(event);
      return state;
    }
  }
}

/** The user's whole taxonomy as decisions see it: the system one under their ids with their edits, then their own. */
export type TaxonomyView = Pick<CategoryTaxonomyState, 'groups' | 'categories'>;
export function withSystemTaxonomy(userId: string, state: CategoryTaxonomyState): TaxonomyView {
  const system = systemTaxonomyOf(userId);
  const groups = new Map<string, CategoryGroupState>(system.groups);
  for (const [id, group] of state.groups) groups.set(id, group);
  const categories = new Map<string, CategoryState>();
  for (const [id, category] of system.categories) categories.set(id, { ...category, hidden: false, excludeFromInsights: false, ...state.systemEdits.get(id) });
  for (const [id, category] of state.categories) categories.set(id, category);
  return { groups, categories };
}

/** Names compare without case and surrounding space: "Coffee" and " coffee" are one name. */
export function sameCategoryName(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

export const CATEGORY_TAXONOMY_STREAM_PREFIX = 'category-taxonomy-';

export function categoryTaxonomyStreamId(userId: string): string {
  return `${CATEGORY_TAXONOMY_STREAM_PREFIX}${userId}`;
}
