import { Body, Controller, Delete, Get, Header, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Kysely } from 'kysely';
import type { Clock } from '../../../core/clock.js';
import { NotFoundError } from '../../../core/errors.js';
import { AnyKeyOnItself, CurrentPrincipal, RequireScope } from '../../../infrastructure/http/api-key.guard.js';
import { ForbiddenError } from '../../../infrastructure/http/http-error.filter.js';
import { ApiErrors } from '../../../infrastructure/http/openapi-errors.js';
import { UuidParam } from '../../../infrastructure/http/request-helpers.js';
import { SuccessResponse } from '../../../infrastructure/http/success.response.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import { CLOCK, DATABASE } from '../../../infrastructure/runtime/tokens.js';
import { DEFAULT_API_KEY_SCOPES, KEY_MANAGEMENT_SCOPE, SCOPES } from '../api-key.js';
import type { IdentityAuthenticator } from '../identity.authenticator.js';
import { issueApiKey, listApiKeys, type Principal } from '../identity.store.js';
import { AUTHENTICATOR } from '../identity.tokens.js';
import { CreateApiKeyRequest } from './api-key.requests.js';
import { ApiKeyListResponse, CreatedApiKeyResponse } from './api-key.responses.js';

/**
 * Key management needs a session or a key with the `keys` scope: a key given to a script must
 * not be able to mint keys that outlive its own revocation. Any key may revoke itself.
 */
@ApiTags('API keys')
@ApiBearerAuth('bearerAuth')
@Controller('api-keys')
export class ApiKeysHttpController {
  constructor(
    @Inject(DATABASE) private readonly db: Kysely<Database>,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(AUTHENTICATOR) private readonly authenticator: IdentityAuthenticator,
  ) {}

  @Post()
  @Header('Cache-Control', 'no-store')
  @RequireScope(KEY_MANAGEMENT_SCOPE)
  @ApiOperation({
    operationId: 'createApiKey',
    summary: 'Issue an API key; the key is in this answer and never again',
    description:
      'Needs the session cookie or a key with the `keys` scope (else 403); a key issues only scopes it has itself. Scopes default to `read` and `write`; ask for `keys` explicitly.',
  })
  @ApiCreatedResponse({ type: CreatedApiKeyResponse })
  @ApiErrors(401, 403, 422)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateApiKeyRequest): Promise<CreatedApiKeyResponse> {
    const scopes = SCOPES.filter((scope) => (body.scopes ?? DEFAULT_API_KEY_SCOPES).includes(scope));
    // A key never hands out more than it holds (a session holds every scope).
    const beyond = scopes.filter((scope) => !principal.scopes.includes(scope));
    if (beyond.length > 0) throw new ForbiddenError(`An API key can only issue keys with scopes it has itself; this one lacks ${beyond.map((scope) => `"${scope}"`).join(', ')}.`);
    const issued = await issueApiKey(this.db, principal.user.id, body.name, scopes, this.clock.now());
    return { id: issued.id, name: issued.name, key: issued.key, prefix: issued.prefix, scopes: [...issued.scopes], createdAt: issued.createdAt.toISOString() };
  }

  @Get()
  @RequireScope(KEY_MANAGEMENT_SCOPE)
  @ApiOperation({
    operationId: 'listApiKeys',
    summary: "The user's API keys that are not revoked, without their secrets",
    description: 'Needs the session cookie or a key with the `keys` scope (else 403).',
  })
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
  @RequireScope(KEY_MANAGEMENT_SCOPE)
  @AnyKeyOnItself('apiKeyId')
  @ApiOperation({
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key: it stops working at once, everywhere',
    description:
      'Needs the session cookie or a key with the `write` and `keys` scopes (else 403); any key may revoke itself, whatever its scopes (a read-only key included).',
  })
  @ApiOkResponse({ type: SuccessResponse })
  @ApiErrors(401, 403, 404)
  async revoke(@CurrentPrincipal() principal: Principal, @UuidParam('apiKeyId', 'API key') apiKeyId: string): Promise<SuccessResponse> {
    if (!(await this.authenticator.revokeApiKey(principal.user.id, apiKeyId, this.clock.now()))) throw new NotFoundError('API key');
    return { success: true, message: 'API key revoked' };
  }
}
