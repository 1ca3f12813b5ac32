import type { Decider } from '../../core/decider.js';
import { DomainRuleError, NotFoundError } from '../../core/errors.js';
import { unhandled } from '../../core/exhaustive.js';
import {
  type CategoryChanges,
  type CategoryState,
  type CategoryTaxonomyEvent,
  type CategoryTaxonomyState,
  type TaxonomyView,
  evolveCategoryTaxonomy,
  initialCategoryTaxonomyState,
  sameCategoryName,
  withSystemTaxonomy,
} from './category-taxonomy.js';

/** Every command names its user: the system categories it may name are that user's ids for them. */
interface TaxonomyCommandBase {
  readonly userId: string;
}

export type CategoryTaxonomyCommand =
  | (TaxonomyCommandBase & { type: 'CreateCategory'; categoryId: string; groupId: string; name: string; iconKey: string })
  | (TaxonomyCommandBase & { type: 'EditCategory'; categoryId: string; changes: CategoryChanges })
  | (TaxonomyCommandBase & { type: 'CreateCategoryGroup'; groupId: string; name: string });

export function decideCategoryTaxonomy(command: CategoryTaxonomyCommand, stored: CategoryTaxonomyState): CategoryTaxonomyEvent[] {
  const state = withSystemTaxonomy(command.userId, stored);
  switch (command.type) {
    case 'CreateCategory': {
      if (!state.groups.has(command.groupId)) throw groupNotFound();
      if (state.categories.has(command.categoryId)) throw new DomainRuleError('CATEGORY_EXISTS', 'A category with this id already exists.', 409);
      refuseTakenName(state, command.groupId, command.name, null);
      const order = nextOrder([...state.categories.values()].filter((category) => category.groupId === command.groupId));
      return [{ type: 'CategoryCreated', data: { categoryId: command.categoryId, groupId: command.groupId, name: command.name, iconKey: command.iconKey, order } }];
    }
    case 'EditCategory': {
      const category = state.categories.get(command.categoryId);
      if (!category) throw new NotFoundError('Category');
      const wanted = { ...command.changes };
      const groupId = wanted.groupId ?? category.groupId;
      if (!state.groups.has(groupId)) throw groupNotFound();
      const moving = groupId !== category.groupId;
      // A category moved without an order of its own goes to the end of its new group.
      if (moving && wanted.order === undefined) wanted.order = nextOrder([...state.categories.values()].filter((other) => other.groupId === groupId));
      if (moving || (wanted.name !== undefined && wanted.name !== category.name)) refuseTakenName(state, groupId, wanted.name ?? category.name, category.id);
      const changes = changedFields(category, wanted);
      return Object.keys(changes).length === 0 ? [] : [{ type: 'CategoryEdited', data: { categoryId: category.id, changes } }];
    }
    case 'CreateCategoryGroup': {
      if (state.groups.has(command.groupId)) throw new DomainRuleError('CATEGORY_GROUP_EXISTS', 'A category group with this id already exists.', 409);
      if ([...state.groups.values()].some((group) => sameCategoryName(group.name, command.name))) {
        throw new DomainRuleError('CATEGORY_GROUP_NAME_TAKEN', `You already have a category group named "${command.name}".`, 409);
      }
      return [{ type: 'CategoryGroupCreated', data: { groupId: command.groupId, name: command.name, order: nextOrder([...state.groups.values()]) } }];
    }
    default: {
      unhandled(command);
      throw new Error(`Unknown category command ${(command as { type: string }).type}`);
    }
  }
}

const groupNotFound = () => new DomainRuleError('CATEGORY_GROUP_NOT_FOUND', 'groupId names no category group of yours.', 400);

function refuseTakenName(state: TaxonomyView, groupId: string, name: string, self: string | null): void {
  const taken = [...state.categories.values()].some((other) => other.groupId === groupId && other.id !== self && sameCategoryName(other.name, name));
  if (taken) throw new DomainRuleError('CATEGORY_NAME_TAKEN', `This group already has a category named "${name.trim()}".`, 409);
}

function nextOrder(siblings: ReadonlyArray<{ order: number }>): number {
  return siblings.reduce((highest, sibling) => Math.max(highest, sibling.order + 1), 0);
}

function changedFields(category: CategoryState, wanted: CategoryChanges): CategoryChanges {
  const changes: CategoryChanges = {};
  if (wanted.name !== undefined && wanted.name !== category.name) changes.name = wanted.name;
  if (wanted.iconKey !== undefined && wanted.iconKey !== category.iconKey) changes.iconKey = wanted.iconKey;
  if (wanted.hidden !== undefined && wanted.hidden !== category.hidden) changes.hidden = wanted.hidden;
  if (wanted.excludeFromInsights !== undefined && wanted.excludeFromInsights !== category.excludeFromInsights) changes.excludeFromInsights = wanted.excludeFromInsights;
  if (wanted.order !== undefined && wanted.order !== category.order) changes.order = wanted.order;
  if (wanted.groupId !== undefined && wanted.groupId !== category.groupId) changes.groupId = wanted.groupId;
  return changes;
}

export const categoryTaxonomyDecider: Decider<CategoryTaxonomyCommand, CategoryTaxonomyEvent, CategoryTaxonomyState> = {
  decide: decideCategoryTaxonomy,
  evolve: evolveCategoryTaxonomy,
  initialState: initialCategoryTaxonomyState,
};
