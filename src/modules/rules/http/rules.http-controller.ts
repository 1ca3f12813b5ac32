import { Body, Controller, Delete, Get, HttpCode, Inject, Patch, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Kysely } from 'kysely';
import type { Clock } from '../../../core/clock.js';
import { DomainRuleError, NotFoundError, ValidationFailedError } from '../../../core/errors.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import { CurrentPrincipal } from '../../../infrastructure/http/api-key.guard.js';
import { ApiErrors } from '../../../infrastructure/http/openapi-errors.js';
import { newEntityId, type RequestTrace, Trace, userCommandContext, UuidParam } from '../../../infrastructure/http/request-helpers.js';
import type { OutboxJobRunner } from '../../../infrastructure/jobs/outbox-job-runner.js';
import { CLOCK, DATABASE, JOBS } from '../../../infrastructure/runtime/tokens.js';
import type { Principal } from '../../identity/identity.store.js';
import { RULE_BOUNDS, type Rule, type RuleAction, type RuleCondition } from '../rule.js';
import { RULE_APPLICATION_JOB, type RuleApplicationInput, ruleApplicationJobId } from '../rule-application.job.js';
import { applicationOf, recordApplication, type RuleApplication } from '../rule-applications.store.js';
import { referenceIssues } from '../rule-references.js';
import { actionIssues, conditionIssues, normalisedAction, normalisedCondition } from '../rule-shape.js';
import { deleteRule, findRule, insertRule, listRules, updateRule } from '../rules.store.js';
import { CreateRuleRequest, PatchRuleRequest, type RuleActionRequest, type RuleConditionRequest } from './rule.requests.js';
import { RuleApplicationResponse, RuleListResponse, RuleResponse } from './rule.responses.js';

const RULES_DESCRIPTION =
  'Rules run, in `order`, on every new transaction (manual, statement import, bank sync) and every change a bank sync makes, a moment after it is written. ' +
  'A matching rule sets what its actions say, except on fields you have set yourself (locked): your own edit always wins, and a rule never locks a field. ' +
  'Its change shows in the transaction\'s activity with actor `system` and the rule\'s `ruleId`.';

@ApiTags('Rules')
@ApiBearerAuth('bearerAuth')
@Controller('rules')
export class RulesHttpController {
  constructor(
    @Inject(DATABASE) private readonly db: Kysely<Database>,
    @Inject(JOBS) private readonly jobs: OutboxJobRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post()
  @ApiOperation({ operationId: 'createRule', summary: `Create a rule (at most ${RULE_BOUNDS.rulesPerUser} per user)`, description: RULES_DESCRIPTION })
  @ApiCreatedResponse({ type: RuleResponse })
  @ApiErrors(400, 401, 403, 409, 422)
  async create(@CurrentPrincipal() principal: Principal, @Trace() trace: RequestTrace, @Body() body: CreateRuleRequest): Promise<RuleResponse> {
    const context = userCommandContext(principal, trace, this.clock);
    const ruleId = newEntityId(context, 'rule');
    const conditions = await this.checkedConditions(context.userId, body.conditions);
    const actions = await this.checkedActions(context.userId, body.actions);
    // A create run again under its Idempotency-Key finds the rule its first run made.
    const earlier = context.idempotencyKey === undefined ? undefined : await findRule(this.db, context.userId, ruleId);
    if (earlier) return ruleResponseOf(earlier);
    const rule = await insertRule(this.db, context.userId, ruleId, { name: body.name, conditions, match: body.match ?? 'all', actions, ...(body.order === undefined ? {} : { order: body.order }) }, context.now);
    if (!rule) throw new DomainRuleError('RULE_LIMIT_REACHED', `You have ${RULE_BOUNDS.rulesPerUser} rules already: delete one to add another.`, 409);
    return ruleResponseOf(rule);
  }

  @Get()
  @ApiOperation({ operationId: 'listRules', summary: 'Your rules, in the order they run' })
  @ApiOkResponse({ type: RuleListResponse })
  @ApiErrors(401, 403)
  async list(@CurrentPrincipal() principal: Principal): Promise<RuleListResponse> {
    return { rules: (await listRules(this.db, principal.user.id)).map(ruleResponseOf) };
  }

  // Declared before the {ruleId} routes, so the document lists the literal path first.
  @Get('applications/:applicationId')
  @ApiOperation({ operationId: 'getRuleApplication', summary: 'An application of a rule to your existing transactions: its status and counts as its job goes' })
  @ApiOkResponse({ type: RuleApplicationResponse })
  @ApiErrors(401, 403, 404)
  async application(@CurrentPrincipal() principal: Principal, @UuidParam('applicationId', 'Rule application') applicationId: string): Promise<RuleApplicationResponse> {
    const found = await applicationOf(this.db, principal.user.id, applicationId);
    if (!found) throw new NotFoundError('Rule application');
    return applicationResponseOf(found);
  }

  @Patch(':ruleId')
  @ApiOperation({ operationId: 'updateRule', summary: "Change a rule's name, conditions, match, actions or order; lists are replaced whole" })
  @ApiOkResponse({ type: RuleResponse })
  @ApiErrors(400, 401, 403, 404, 422)
  async patch(@CurrentPrincipal() principal: Principal, @UuidParam('ruleId', 'Rule') ruleId: string, @Body() body: PatchRuleRequest): Promise<RuleResponse> {
    const userId = principal.user.id;
    if (!(await findRule(this.db, userId, ruleId))) throw new NotFoundError('Rule');
    const conditions = body.conditions === undefined ? undefined : await this.checkedConditions(userId, body.conditions);
    const actions = body.actions === undefined ? undefined : await this.checkedActions(userId, body.actions);
    const changes = { name: body.name, match: body.match, order: body.order, conditions, actions };
    const rule = await updateRule(this.db, userId, ruleId, changes, this.clock.now());
    if (!rule) throw new NotFoundError('Rule');
    return ruleResponseOf(rule);
  }

  @Delete(':ruleId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteRule', summary: 'Delete a rule; what it changed stays as it is' })
  @ApiNoContentResponse({ description: 'Deleted; no body' })
  @ApiErrors(401, 403, 404)
  async remove(@CurrentPrincipal() principal: Principal, @UuidParam('ruleId', 'Rule') ruleId: string): Promise<void> {
    if (!(await deleteRule(this.db, principal.user.id, ruleId))) throw new NotFoundError('Rule');
  }

  @Post(':ruleId/apply')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'applyRule',
    summary: 'Apply a rule to your existing transactions, as a job',
    description:
      'Answers 202 with the application queued; GET /rules/applications/{applicationId} follows it (`matched`, `changed`). Locked fields are left alone as on new transactions. ' +
      'Applying again changes nothing a first application changed: a transaction that has the rule\'s values already counts as matched, not changed.',
  })
  @ApiAcceptedResponse({ type: RuleApplicationResponse })
  @ApiErrors(400, 401, 403, 404, 413)
  async apply(@CurrentPrincipal() principal: Principal, @Trace() trace: RequestTrace, @UuidParam('ruleId', 'Rule') ruleId: string): Promise<RuleApplicationResponse> {
    const context = userCommandContext(principal, trace, this.clock);
    if (!(await findRule(this.db, context.userId, ruleId))) throw new NotFoundError('Rule');
    const applicationId = newEntityId(context, 'rule-application');
    const earlier = context.idempotencyKey === undefined ? undefined : await applicationOf(this.db, context.userId, applicationId);
    if (earlier) return applicationResponseOf(earlier);
    const input: RuleApplicationInput = { userId: context.userId, applicationId };
    await recordApplication(
      this.db,
      { id: applicationId, userId: context.userId, ruleId, correlationId: trace.correlationId, createdAt: context.now },
      { name: RULE_APPLICATION_JOB, input, jobId: ruleApplicationJobId(applicationId), cause: { requestId: trace.requestId, correlationId: trace.correlationId } },
    );
    this.jobs.wake();
    return applicationResponseOf((await applicationOf(this.db, context.userId, applicationId)) as RuleApplication);
  }

  private async checkedConditions(userId: string, requested: readonly RuleConditionRequest[]): Promise<RuleCondition[]> {
    const conditions = requested.map((condition) => normalisedCondition(condition as RuleCondition));
    const shape = conditionIssues(conditions);
    if (shape.length > 0) throw new ValidationFailedError(shape);
    const references = await referenceIssues(this.db, userId, { conditions });
    if (references.length > 0) throw new ValidationFailedError(references);
    return conditions;
  }

  private async checkedActions(userId: string, requested: readonly RuleActionRequest[]): Promise<RuleAction[]> {
    const shape = actionIssues(requested as unknown as Parameters<typeof actionIssues>[0]);
    if (shape.length > 0) throw new ValidationFailedError(shape);
    const actions = requested.map((action) => normalisedAction(action as unknown as Parameters<typeof normalisedAction>[0]));
    const references = await referenceIssues(this.db, userId, { actions });
    if (references.length > 0) throw new ValidationFailedError(references);
    return actions;
  }
}

function ruleResponseOf(rule: Rule): RuleResponse {
  return { ...rule, conditions: rule.conditions.map((condition) => ({ ...condition })), actions: rule.actions.map((action) => ({ ...action }) as RuleResponse['actions'][number]) };
}

function applicationResponseOf(application: RuleApplication): RuleApplicationResponse {
  return { ...application };
}
