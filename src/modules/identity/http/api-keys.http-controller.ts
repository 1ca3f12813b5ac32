import { Body, Controller, Delete, Get, Header, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Kysely } from 'kysely';
import type { Clock } from '../../../core/clock.js';
import { NotFoundError } from '../../../core/errors.js';
import { CurrentPrincipal } from '../../../infrastructure/http/api-key.guard.js';
import { ApiErrors } from '../../../infrastructure/http/openapi-errors.js';
import { UuidParam } from '../../../infrastructure/http/request-helpers.js';
import { SuccessResponse } from '../../../infrastructure/http/success.response.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import { CLOCK, DATABASE } from '../../../infrastructure/runtime/tokens.js';
import { SCOPES } from '../api-key.js';
import { issueApiKey, listApiKeys, type Principal, revokeApiKey } from '../identity.store.js';
import { CreateApiKeyRequest } from './api-key.requests.js';
import { ApiKeyListResponse, CreatedApiKeyResponse } from './api-key.responses.js';

@ApiTags('API keys')
@ApiBearerAuth('bearerAuth')
@Controller('api-keys')
export class ApiKeysHttpController {
  constructor(
    @Inject(DATABASE) private readonly db: Kysely<Database>,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ operationId: 'createApiKey', summary: 'Issue an API key; the key is in this answer and never again' })
  @ApiCreatedResponse({ type: CreatedApiKeyResponse })
  @ApiErrors(401, 403, 422)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateApiKeyRequest): Promise<CreatedApiKeyResponse> {
    const scopes = SCOPES.filter((scope) => (body.scopes ?? SCOPES).includes(scope));
    const issued = await issueApiKey(this.db, principal.user.id, body.name, scopes, this.clock.now());
    return { id: issued.id, name: issued.name, key: issued.key, prefix: issued.prefix, scopes: [...issued.scopes], createdAt: issued.createdAt.toISOString() };
  }

  @Get()
  @ApiOperation({ operationId: 'listApiKeys', summary: "The user's API keys that are not revoked, without their secrets" })
  @ApiOkResponse({ type: ApiKeyListResponse })
  @ApiErrors(401, 403)
  async list(@CurrentPrincipal() principal: Principal): Promise<ApiKeyListResponse> {
    const keys = await listApiKeys(this.db, principal.user.id);
    return {
      apiKeys: keys.map((key) => ({ id: key.id, name: key.name, prefix: key.prefix, scopes: [...key.scopes], createdAt: key.createdAt.toISOString(), lastUsedAt: key.lastUsedAt?.toISOString() ?? null })),
    };
  }

  @Delete(':apiKeyId')
  @HttpCode(200)
  @ApiOperation({ operationId: 'revokeApiKey', summary: 'Revoke an API key: it stops working at once, everywhere' })
  @ApiOkResponse({ type: SuccessResponse })
  @ApiErrors(401, 403, 404)
  async revoke(@CurrentPrincipal() principal: Principal, @UuidParam('apiKeyId', 'API key') apiKeyId: string): Promise<SuccessResponse> {
    if (!(await revokeApiKey(this.db, principal.user.id, apiKeyId, this.clock.now()))) throw new NotFoundError('API key');
    return { success: true, message: 'API key revoked' };
  }
}
