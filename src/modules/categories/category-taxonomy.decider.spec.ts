import { DomainRuleError, NotFoundError } from '../../core/errors.js';
import { specification } from '../../core/decider-specification.test-support.js';
import type { CategoryCreated, CategoryEdited, CategoryGroupCreated, CategoryTaxonomySeeded } from './category-taxonomy.js';
import { categoryTaxonomyDecider } from './category-taxonomy.decider.js';
import { CATEGORY_GROUP_KEYS } from './system-taxonomy.js';
import { systemCategoryId, systemGroupId, systemTaxonomyOf } from './user-categories.js';

const userId = '11111111-1111-4111-8111-111111111111';
const base = { userId };
const seeded: CategoryTaxonomySeeded = { type: 'CategoryTaxonomySeeded', data: { userId, taxonomyVersion: 1 } };
const food = systemGroupId(userId, 'FOOD_AND_DRINK');
const travel = systemGroupId(userId, 'TRAVEL');
const coffee = systemCategoryId(userId, 'FOOD_AND_DRINK_COFFEE');
const foodCategories = [...systemTaxonomyOf(userId).categories.values()].filter((category) => category.groupId === food).length;
const boardGames: CategoryCreated = { type: 'CategoryCreated', data: { categoryId: 'c1', groupId: food, name: 'Board games', iconKey: 'dice', order: foodCategories } };
const spec = specification(categoryTaxonomyDecider);

const refusedWith = (code: string, status: number) => (error: unknown) => {
  expect(error).toBeInstanceOf(DomainRuleError);
  expect(error).toMatchObject({ code, status });
};

describe('category taxonomy decider', () => {
  it('gives every user the 16 Plaid primary groups under ids derived from the user and each systemKey', () => {
    const groups = [...systemTaxonomyOf(userId).groups.values()];
    expect(groups.map((group) => group.systemKey)).toEqual(CATEGORY_GROUP_KEYS);
    expect(CATEGORY_GROUP_KEYS).toHaveLength(16);
    expect(groups.map((group) => group.order)).toEqual([...Array(16).keys()]);
    expect(systemTaxonomyOf(userId).categories.get(coffee)).toMatchObject({ systemKey: 'FOOD_AND_DRINK_COFFEE', groupId: food });
    expect(systemTaxonomyOf('someone else').categories.has(coffee)).toBe(false);
  });

  it('seeds nothing: a first command appends only its own event, and a retired seeding event changes no decision', () => {
    spec.given([]).when({ type: 'CreateCategory', ...base, categoryId: 'c1', groupId: food, name: 'Board games', iconKey: 'dice' }).then([boardGames]);
    spec.given([]).when({ type: 'EditCategory', ...base, categoryId: coffee, changes: { hidden: true } }).then([{ type: 'CategoryEdited', data: { categoryId: coffee, changes: { hidden: true } } }]);
    spec.given([seeded]).when({ type: 'CreateCategory', ...base, categoryId: 'c1', groupId: food, name: 'Board games', iconKey: 'dice' }).then([boardGames]);
  });

  it('decides on a system category as the user last edited it', () => {
    const renamed: CategoryEdited = { type: 'CategoryEdited', data: { categoryId: coffee, changes: { name: 'Cafe' } } };
    spec.given([renamed]).when({ type: 'EditCategory', ...base, categoryId: coffee, changes: { name: 'Cafe' } }).then([]);
    spec.given([renamed]).when({ type: 'CreateCategory', ...base, categoryId: 'c2', groupId: food, name: 'coffee', iconKey: 'x' }).then([
      { type: 'CategoryCreated', data: { categoryId: 'c2', groupId: food, name: 'coffee', iconKey: 'x', order: foodCategories } },
    ]);
    spec.given([renamed]).when({ type: 'CreateCategory', ...base, categoryId: 'c2', groupId: food, name: 'CAFE', iconKey: 'x' }).thenThrows(refusedWith('CATEGORY_NAME_TAKEN', 409));
  });

  it('creates a category at the end of its group', () => {
    spec.given([]).when({ type: 'CreateCategory', ...base, categoryId: 'c1', groupId: food, name: 'Board games', iconKey: 'dice' }).then([boardGames]);
  });

  it('refuses a group that does not exist (CATEGORY_GROUP_NOT_FOUND, 400)', () => {
    spec
      .given([])
      .when({ type: 'CreateCategory', ...base, categoryId: 'c1', groupId: systemGroupId('someone else', 'FOOD_AND_DRINK'), name: 'x', iconKey: 'x' })
      .thenThrows(refusedWith('CATEGORY_GROUP_NOT_FOUND', 400));
    spec.given([]).when({ type: 'EditCategory', ...base, categoryId: coffee, changes: { groupId: 'nowhere' } }).thenThrows(refusedWith('CATEGORY_GROUP_NOT_FOUND', 400));
  });

  it('refuses a name already in the group, whatever its case or surrounding space (CATEGORY_NAME_TAKEN, 409)', () => {
    spec.given([]).when({ type: 'CreateCategory', ...base, categoryId: 'c2', groupId: food, name: ' COFFEE ', iconKey: 'x' }).thenThrows(refusedWith('CATEGORY_NAME_TAKEN', 409));
    spec.given([boardGames]).when({ type: 'CreateCategory', ...base, categoryId: 'c2', groupId: food, name: 'board games', iconKey: 'x' }).thenThrows(refusedWith('CATEGORY_NAME_TAKEN', 409));
    spec.given([boardGames]).when({ type: 'EditCategory', ...base, categoryId: coffee, changes: { name: 'Board Games' } }).thenThrows(refusedWith('CATEGORY_NAME_TAKEN', 409));
    // The same name in another group is another category.
    spec
      .given([boardGames])
      .when({ type: 'CreateCategory', ...base, categoryId: 'c2', groupId: travel, name: 'Board games', iconKey: 'x' })
      .then([{ type: 'CategoryCreated', data: { categoryId: 'c2', groupId: travel, name: 'Board games', iconKey: 'x', order: [...systemTaxonomyOf(userId).categories.values()].filter((c) => c.groupId === travel).length } }]);
  });

  it('edits only what changes, and a category may change the case of its own name', () => {
    spec.given([]).when({ type: 'EditCategory', ...base, categoryId: coffee, changes: { name: 'Coffee', hidden: false } }).then([]);
    spec
      .given([])
      .when({ type: 'EditCategory', ...base, categoryId: coffee, changes: { name: 'COFFEE', hidden: true, excludeFromInsights: true, iconKey: 'cup', order: 7 } })
      .then([{ type: 'CategoryEdited', data: { categoryId: coffee, changes: { name: 'COFFEE', hidden: true, excludeFromInsights: true, iconKey: 'cup', order: 7 } } }]);
  });

  it('moves a category to the end of another group unless told its order, refusing a name taken there', () => {
    const travelCount = [...systemTaxonomyOf(userId).categories.values()].filter((c) => c.groupId === travel).length;
    spec.given([]).when({ type: 'EditCategory', ...base, categoryId: coffee, changes: { groupId: travel } }).then([{ type: 'CategoryEdited', data: { categoryId: coffee, changes: { groupId: travel, order: travelCount } } }]);
    spec.given([]).when({ type: 'EditCategory', ...base, categoryId: coffee, changes: { groupId: travel, order: 0 } }).then([{ type: 'CategoryEdited', data: { categoryId: coffee, changes: { groupId: travel, order: 0 } } }]);
    const travelCoffee: CategoryCreated = { type: 'CategoryCreated', data: { categoryId: 'c3', groupId: travel, name: 'coffee', iconKey: 'x', order: travelCount } };
    spec.given([travelCoffee]).when({ type: 'EditCategory', ...base, categoryId: coffee, changes: { groupId: travel } }).thenThrows(refusedWith('CATEGORY_NAME_TAKEN', 409));
  });

  it('knows no category that is not in this taxonomy', () => {
    spec.given([]).when({ type: 'EditCategory', ...base, categoryId: systemCategoryId('someone else', 'FOOD_AND_DRINK_COFFEE'), changes: { hidden: true } }).thenThrows((error) => expect(error).toBeInstanceOf(NotFoundError));
  });

  it('creates a group of the user after the others, its name unique among groups, and takes categories in it', () => {
    const hobbies: CategoryGroupCreated = { type: 'CategoryGroupCreated', data: { groupId: 'g1', name: 'Hobbies', order: 16 } };
    spec.given([]).when({ type: 'CreateCategoryGroup', ...base, groupId: 'g1', name: 'Hobbies' }).then([hobbies]);
    spec.given([hobbies]).when({ type: 'CreateCategoryGroup', ...base, groupId: 'g2', name: 'hobbies' }).thenThrows(refusedWith('CATEGORY_GROUP_NAME_TAKEN', 409));
    spec
      .given([hobbies])
      .when({ type: 'CreateCategory', ...base, categoryId: 'c1', groupId: 'g1', name: 'Coffee', iconKey: 'cup' })
      .then([{ type: 'CategoryCreated', data: { categoryId: 'c1', groupId: 'g1', name: 'Coffee', iconKey: 'cup', order: 0 } }]);
  });
});
