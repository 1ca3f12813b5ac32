import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DomainRuleError, NotFoundError } from '../../../core/errors.js';
import { ApiErrors } from '../../../infrastructure/http/openapi-errors.js';
import { BankLinkError } from '../bank-link.port.js';
import { BANK_LINK, type BankLink } from '../bank-link.wiring.js';
import { CreateSandboxPublicTokenRequest } from './link.requests.js';
import { SandboxPublicTokenResponse } from './link.responses.js';

/** Like a provider's own sandbox: served only while the sandbox is the configured provider (else 404). */
@ApiTags('Sandbox')
@ApiBearerAuth('bearerAuth')
@Controller()
export class SandboxHttpController {
  constructor(@Inject(BANK_LINK) private readonly bankLink: BankLink) {}

  @Post('sandbox/public-token')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createSandboxPublicToken',
    summary: 'Stand in for a user completing the link flow at a sandbox institution: a public token to exchange with POST /link/items',
  })
  @ApiOkResponse({ type: SandboxPublicTokenResponse })
  @ApiErrors(400, 401, 403, 404, 422)
  async createPublicToken(@Body() body: CreateSandboxPublicTokenRequest): Promise<SandboxPublicTokenResponse> {
    const sandbox = this.bankLink.sandbox;
    if (!sandbox) throw new NotFoundError('Sandbox operation');
    try {
      return { publicToken: await sandbox.createPublicToken({ institutionId: body.institutionId }) };
    } catch (error) {
      if (error instanceof BankLinkError && error.code === 'INSTITUTION_NOT_FOUND') {
        throw new DomainRuleError('INSTITUTION_NOT_FOUND', `No sandbox institution ${body.institutionId ?? ''}: use ins_100001 to ins_100005.`);
      }
      throw error;
    }
  }
}
