import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeController, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { sql } from 'kysely';
import { PROJECTIONS } from '../../../projections/index.js';
import { Public } from '../../infrastructure/http/api-key.guard.js';
import { type ProjectionHealth, projectionHealth, readProjectionVersions } from '../../infrastructure/projections/projection-status.js';
import type { Runtime } from '../../infrastructure/runtime/runtime.js';
import { RUNTIME } from '../../infrastructure/runtime/tokens.js';

class HealthChecks {
  @ApiProperty({ enum: ['up', 'down'] }) database!: string;
  @ApiProperty({ enum: ['up', 'down'] }) eventStore!: string;
  @ApiProperty({ enum: ['up', 'down', 'not configured'] }) redis!: string;
}

class ProjectionHealthDetail {
  @ApiProperty({ enum: ['ok', 'parked', 'building', 'superseded'] }) status!: ProjectionHealth;
  @ApiProperty({ description: 'events parked and not yet retried or skipped' }) parked!: number;
}

class HealthResponse {
  @ApiProperty({ enum: ['ok', 'degraded', 'unavailable'] }) status!: string;
  @ApiProperty({ type: HealthChecks }) checks!: HealthChecks;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { $ref: '#/components/schemas/ProjectionHealthDetail' }, description: "this release's version of each read model" })
  projections?: Record<string, ProjectionHealthDetail>;
}

const CHECK_TIMEOUT_MS = 2000;

/**
 * An operator's probe outside /v1, so it is not part of the API's OpenAPI document. 503 only when
 * the service cannot serve at all (database or event store down); a projection with parked events,
 * one still building or superseded, or Redis down (the API keeps serving without it) is `degraded`.
 */
@ApiExcludeController()
@Controller()
export class HealthHttpController {
  constructor(@Inject(RUNTIME) private readonly runtime: Runtime) {}

  @Get('health')
  @Public()
  @ApiOperation({ operationId: 'health', summary: '503 when the database or the event store is down; otherwise ok, or degraded with what is wrong' })
  @ApiOkResponse({ type: HealthResponse })
  @ApiServiceUnavailableResponse({ type: HealthResponse })
  async health(@Res({ passthrough: true }) response: FastifyReply): Promise<HealthResponse> {
    const [database, eventStore, redis, versions] = await Promise.all([
      probe(() => sql`SELECT 1`.execute(this.runtime.database.db)),
      probe(() => this.runtime.eventStore.headPosition()),
      this.runtime.config.redisUrl ? probe(() => this.runtime.jobs.counts()) : Promise.resolve('not configured' as const),
      // One query: every version's checkpoint row with its open parked count (no scan of events).
      withTimeout(readProjectionVersions(this.runtime.database.db)).catch(() => null),
    ]);
    const checks = { database, eventStore, redis };
    if (database === 'down' || eventStore === 'down') {
      response.code(503);
      return { status: 'unavailable', checks };
    }
    const projections = versions ? projectionHealth(versions, PROJECTIONS) : undefined;
    const degraded = redis === 'down' || !projections || Object.values(projections).some((projection) => projection.status !== 'ok');
    return { status: degraded ? 'degraded' : 'ok', checks, ...(projections ? { projections } : {}) };
  }
}

async function probe(check: () => Promise<unknown>): Promise<'up' | 'down'> {
  try {
    await withTimeout(check());
    return 'up';
  } catch {
    return 'down';
  }
}

async function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('health check timed out')), CHECK_TIMEOUT_MS);
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
