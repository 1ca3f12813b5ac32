import { Body, Controller, Get, Inject, Patch, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Clock } from '../../../core/clock.js';
import { CurrentPrincipal } from '../../../infrastructure/http/api-key.guard.js';
import { ApiErrors } from '../../../infrastructure/http/openapi-errors.js';
import { madeEarlierUnderKey, newEntityId, UuidParam, type RequestTrace, Trace, userCommandContext } from '../../../infrastructure/http/request-helpers.js';
import { ConsistentCommandBus } from '../../../infrastructure/runtime/consistent-command-bus.js';
import { CLOCK } from '../../../infrastructure/runtime/tokens.js';
import type { Principal } from '../../identity/identity.store.js';
import type { CategoryChanges } from '../category-taxonomy.js';
import { ExecuteCategoryTaxonomyCommand } from '../category.commands.js';
import { CATEGORIES_READ_MODEL } from '../category-directory.js';
import { GetCategory, GetCategoryGroup, ListCategories } from '../category.queries.js';
import { CreateCategoryGroupRequest, CreateCategoryRequest, PatchCategoryRequest } from './category.requests.js';
import { CategoryGroupResponse, CategoryListResponse, CategoryResponse } from './category.responses.js';

/** Category writes answer from the categories read model, which transactions join for their category too. */
const CATEGORY_READ_MODELS = [CATEGORIES_READ_MODEL];

@ApiTags('Categories')
@ApiBearerAuth('bearerAuth')
@Controller('categories')
export class CategoriesHttpController {
  constructor(
    private readonly commands: ConsistentCommandBus,
    private readonly queries: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'listCategories', summary: 'Your category groups and categories (the system taxonomy with your edits, and your own), each sorted by order' })
  @ApiOkResponse({ type: CategoryListResponse })
  @ApiErrors(401, 403, 503)
  async list(@CurrentPrincipal() principal: Principal): Promise<CategoryListResponse> {
    return this.queries.execute(new ListCategories(principal.user.id));
  }

  @Post()
  @ApiOperation({ operationId: 'createCategory', summary: 'Create a category of your own under one of your groups' })
  @ApiCreatedResponse({ type: CategoryResponse })
  @ApiErrors(400, 401, 403, 409, 422, 503)
  async create(@CurrentPrincipal() principal: Principal, @Trace() trace: RequestTrace, @Body() body: CreateCategoryRequest): Promise<CategoryResponse> {
    const context = userCommandContext(principal, trace, this.clock);
    const categoryId = newEntityId(context, 'category');
    const command = { type: 'CreateCategory' as const, userId: context.userId, categoryId, groupId: body.groupId.toLowerCase(), name: body.name.trim(), iconKey: body.iconKey };
    await this.commands.execute(new ExecuteCategoryTaxonomyCommand(command, context), CATEGORY_READ_MODELS).catch((error: unknown) => {
      if (!madeEarlierUnderKey(error, context)) throw error;
    });
    return this.queries.execute(new GetCategory(context.userId, categoryId));
  }

  @Post('groups')
  @ApiOperation({ operationId: 'createCategoryGroup', summary: 'Create a category group of your own' })
  @ApiCreatedResponse({ type: CategoryGroupResponse })
  @ApiErrors(400, 401, 403, 409, 422, 503)
  async createGroup(@CurrentPrincipal() principal: Principal, @Trace() trace: RequestTrace, @Body() body: CreateCategoryGroupRequest): Promise<CategoryGroupResponse> {
    const context = userCommandContext(principal, trace, this.clock);
    const groupId = newEntityId(context, 'category-group');
    const command = { type: 'CreateCategoryGroup' as const, userId: context.userId, groupId, name: body.name.trim() };
    await this.commands.execute(new ExecuteCategoryTaxonomyCommand(command, context), CATEGORY_READ_MODELS).catch((error: unknown) => {
      if (!madeEarlierUnderKey(error, context)) throw error;
    });
    return this.queries.execute(new GetCategoryGroup(context.userId, groupId));
  }

  @Patch(':categoryId')
  @ApiOperation({
    operationId: 'updateCategory',
    summary: 'Rename, re-icon, hide, exclude from insights, reorder or move a category (system ones too); every transaction carrying it shows the change at once',
  })
  @ApiOkResponse({ type: CategoryResponse })
  @ApiErrors(400, 401, 403, 404, 409, 422, 503)
  async patch(
    @CurrentPrincipal() principal: Principal,
    @Trace() trace: RequestTrace,
    @UuidParam('categoryId', 'Category') categoryId: string,
    @Body() body: PatchCategoryRequest,
  ): Promise<CategoryResponse> {
    const context = userCommandContext(principal, trace, this.clock);
    const command = { type: 'EditCategory' as const, userId: context.userId, categoryId, changes: changesOf(body) };
    await this.commands.execute(new ExecuteCategoryTaxonomyCommand(command, context), CATEGORY_READ_MODELS).catch((error: unknown) => {
      if (!madeEarlierUnderKey(error, context)) throw error;
    });
    return this.queries.execute(new GetCategory(context.userId, categoryId));
  }
}

function changesOf(body: PatchCategoryRequest): CategoryChanges {
  const changes: CategoryChanges = {};
  if (body.name !== undefined) changes.name = body.name.trim();
  if (body.iconKey !== undefined) changes.iconKey = body.iconKey;
  if (body.hidden !== undefined) changes.hidden = body.hidden;
  if (body.excludeFromInsights !== undefined) changes.excludeFromInsights = body.excludeFromInsights;
  if (body.order !== undefined) changes.order = body.order;
  if (body.groupId !== undefined) changes.groupId = body.groupId.toLowerCase();
  return changes;
}
