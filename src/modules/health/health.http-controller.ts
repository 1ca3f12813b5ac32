import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeController, ApiOkResponse, ApiOperation, ApiProperty, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import { sql } from 'kysely';
import { Public } from '../../infrastructure/http/api-key.guard.js';
import type { Runtime } from '../../infrastructure/runtime/runtime.js';
import { RUNTIME } from '../../infrastructure/runtime/tokens.js';

class HealthChecks {
  @ApiProperty({ enum: ['up', 'down'] }) database!: string;
  @ApiProperty({ enum: ['up', 'down'] }) eventStore!: string;
  @ApiProperty({ enum: ['up', 'down', 'not configured'] }) redis!: string;
}

class HealthResponse {
  @ApiProperty({ enum: ['ok', 'unavailable'] }) status!: string;
  @ApiProperty({ type: HealthChecks }) checks!: HealthChecks;
}

const CHECK_TIMEOUT_MS = 2000;

/** An operator's probe outside /v1, so it is not part of the API's OpenAPI document. */
@ApiExcludeController()
@Controller()
export class HealthHttpController {
  constructor(@Inject(RUNTIME) private readonly runtime: Runtime) {}

  @Get('health')
  @Public()
  @ApiOperation({ operationId: 'health', summary: '200 only when the database, the event store and (if configured) Redis answer' })
  @ApiOkResponse({ type: HealthResponse })
  @ApiServiceUnavailableResponse({ type: HealthResponse })
  async health(@Res({ passthrough: true }) response: Response): Promise<HealthResponse> {
    const [database, eventStore, redis] = await Promise.all([
      probe(() => sql`SELECT 1`.execute(this.runtime.database.db)),
      probe(() => this.runtime.eventStore.headPosition()),
      this.runtime.config.redisUrl ? probe(() => this.runtime.jobs.counts()) : Promise.resolve('not configured'),
    ]);
    const ok = database === 'up' && eventStore === 'up' && redis !== 'down';
    response.status(ok ? 200 : 503);
    return { status: ok ? 'ok' : 'unavailable', checks: { database, eventStore, redis } };
  }
}

async function probe(check: () => Promise<unknown>): Promise<'up' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'down'>((resolve) => {
    timer = setTimeout(() => resolve('down'), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check().then(() => 'up' as const), timeout]);
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}
