import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeController, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { sql } from 'kysely';
import { Public } from '../../infrastructure/http/api-key.guard.js';
import { QueryFromProvider } from '../../infrastructure/http/query-keys.interceptor.js';
import { type ProjectionHealth, projectionHealth, readDaemonLeader, readProjectionVersions } from '../../infrastructure/projections/projection-status.js';
import type { Runtime } from '../../infrastructure/runtime/runtime.js';
import { RUNTIME } from '../../infrastructure/runtime/tokens.js';

class HealthChecks {
  @ApiProperty({ enum: ['up', 'down'] }) database!: string;
  @ApiProperty({ enum: ['up', 'down'] }) eventStore!: string;
  @ApiProperty({ enum: ['up', 'down', 'not configured'] }) redis!: string;
  @ApiProperty({ enum: ['up', 'down'], description: 'whether an instance holds the projection daemon’s lease and is alive: down, no read model moves' })
  projectionDaemon!: string;
}

class RebuildProgress {
  @ApiProperty() startedAt!: string;
  @ApiProperty({ description: 'events the shadow has applied so far' }) eventsApplied!: number;
}

class ProjectionHealthDetail {
  @ApiProperty({ enum: ['ok', 'parked', 'building', 'superseded', 'lagging'] }) status!: ProjectionHealth;
  @ApiProperty({ description: 'events parked and not yet retried or skipped' }) parked!: number;
  @ApiPropertyOptional({ type: RebuildProgress, description: 'a `projections rebuild` under way (the live version serves meanwhile)' }) rebuild?: RebuildProgress;
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
 * one still building, superseded or lagging, no instance applying the projections, or Redis down
 * (the API keeps serving without it) is `degraded`.
 */
@ApiExcludeController()
@Controller()
export class HealthHttpController {
  constructor(@Inject(RUNTIME) private readonly runtime: Runtime) {}

  @Get('health')
  @Public()
  // A load balancer's probe may add parameters of its own (a cache buster): they are not the API's to refuse.
  @QueryFromProvider()
  @ApiOperation({ operationId: 'health', summary: '503 when the database or the event store is down; otherwise ok, or degraded with what is wrong' })
  @ApiOkResponse({ type: HealthResponse })
  @ApiServiceUnavailableResponse({ type: HealthResponse })
  async health(@Res({ passthrough: true }) response: FastifyReply): Promise<HealthResponse> {
    const [database, head, redis, versions, leader] = await Promise.all([
      probe(() => sql`SELECT 1`.execute(this.runtime.database.db)),
      withTimeout(this.runtime.eventStore.headPosition()).catch(() => null),
      this.runtime.config.redisUrl ? probe(() => this.runtime.jobs.counts()) : Promise.resolve('not configured' as const),
      // One query: every version's checkpoint row with its open parked count and rebuild (no scan of events).
      withTimeout(readProjectionVersions(this.runtime.database.db)).catch(() => null),
      withTimeout(readDaemonLeader(this.runtime.database.db)).catch(() => null),
    ]);
    const eventStore = head === null ? 'down' : 'up';
    const projectionDaemon = leader ? 'up' : 'down';
    const checks = { database, eventStore, redis, projectionDaemon };
    if (database === 'down' || eventStore === 'down') {
      response.code(503);
      return { status: 'unavailable', checks };
    }
    const projections = versions ? projectionHealth(versions, this.runtime.projections, head) : undefined;
    const degraded = redis === 'down' || projectionDaemon === 'down' || !projections || Object.values(projections).some((projection) => projection.status !== 'ok');
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
