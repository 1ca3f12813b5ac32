import { Body, Controller, Get, HttpCode, Inject, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import type { Clock } from '../../../core/clock.js';
import { DomainRuleError, NotFoundError } from '../../../core/errors.js';
import { CurrentPrincipal } from '../../../infrastructure/http/api-key.guard.js';
import { ApiErrors, FlatErrorBody } from '../../../infrastructure/http/openapi-errors.js';
import { STATEMENT_UPLOAD } from '../../../infrastructure/http/request-body-limits.js';
import { UploadedFile } from '../../../infrastructure/http/request-body.reader.js';
import { newEntityId, type RequestTrace, Trace, userCommandContext, UuidParam } from '../../../infrastructure/http/request-helpers.js';
import type { OutboxJobRunner } from '../../../infrastructure/jobs/outbox-job-runner.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import type { EventStore } from '../../../infrastructure/event-store/event-store.port.js';
import { CLOCK, DATABASE, EVENT_STORE, JOBS } from '../../../infrastructure/runtime/tokens.js';
import type { Principal } from '../../identity/identity.store.js';
import { importOf, type StatementImport } from '../statement-imports.store.js';
import { StatementImports } from '../statement-imports.js';
import { ImportStatementQuery } from './statement-import.query-params.js';
import { StatementImportResponse } from './statement-import.responses.js';

const UNSUPPORTED_TYPE = `Send the statement as the raw body with Content-Type ${STATEMENT_UPLOAD.mediaTypes.join(', ')}.`;

@ApiTags('Imports')
@ApiBearerAuth('bearerAuth')
@Controller()
export class ImportsHttpController {
  private readonly imports: StatementImports;

  constructor(@Inject(DATABASE) db: Kysely<Database>, @Inject(EVENT_STORE) store: EventStore, @Inject(JOBS) jobs: OutboxJobRunner, @Inject(CLOCK) private readonly clock: Clock) {
    this.imports = new StatementImports(db, store, () => jobs.wake());
  }

  @Post('accounts/:accountId/imports')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'importStatement',
    summary: 'Import a bank statement (CSV or OFX/QFX) into a manual account, as a job',
    description:
      'The file is the raw body, at most 10 MB: `text/csv` (its charset parameter, else UTF-8), or `application/x-ofx` (also `application/ofx`, `application/vnd.intu.qfx`) for OFX 1.x SGML and 2.x XML. ' +
      'CSV columns are found from the header (case-insensitive): date (`Date`, `Posted Date`, `Transaction Date`), amount (`Amount`) or `Debit` + `Credit`, name (`Description`, `Payee`, `Name`), notes (`Memo`, `Notes`); the query overrides them. ' +
      'Amounts keep the account’s sign convention (money out negative; a Debit column is money out whatever its sign). ' +
      'Answers 202 with the import queued; GET /imports/{importId} follows it. Rows that cannot be imported are listed with their row number; the others are imported. ' +
      'The same statement imported again imports nothing: OFX rows are keyed by FITID, CSV rows by (date, amount, normalised name, occurrence of that triple in the file). ' +
      'Imported transactions are manual ones; their activity shows actor `system` and request `import-{importId}`. `dryRun=true` answers 200 with the counts and writes nothing.',
  })
  @ApiConsumes(...STATEMENT_UPLOAD.mediaTypes)
  @ApiBody({ required: true, description: 'The statement file, as the bank exported it.', schema: { type: 'string', format: 'binary' } })
  @ApiAcceptedResponse({ type: StatementImportResponse, description: 'The import, queued' })
  @ApiOkResponse({ type: StatementImportResponse, description: 'dryRun=true: what the import would do; nothing is written' })
  @ApiResponse({ status: 413, description: `The file is larger than ${STATEMENT_UPLOAD.maxText} (PAYLOAD_TOO_LARGE)`, schema: { $ref: getSchemaPath(FlatErrorBody) } })
  @ApiResponse({ status: 415, description: 'The body is not a CSV or OFX file, or in a charset or encoding the service cannot read (UNSUPPORTED_MEDIA_TYPE)', schema: { $ref: getSchemaPath(FlatErrorBody) } })
  @ApiErrors(400, 401, 403, 404, 422)
  async importStatement(
    @CurrentPrincipal() principal: Principal,
    @Trace() trace: RequestTrace,
    @UuidParam('accountId', 'Account') accountId: string,
    @Query() query: ImportStatementQuery,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StatementImportResponse> {
    const context = userCommandContext(principal, trace, this.clock);
    await this.imports.requireManualAccount(context.userId, accountId);
    if (!(body instanceof UploadedFile)) throw new DomainRuleError('UNSUPPORTED_MEDIA_TYPE', UNSUPPORTED_TYPE, 415);
    const format = body.mediaType === 'text/csv' ? 'csv' : 'ofx';
    const options = {
      ...(query.dateColumn === undefined ? {} : { dateColumn: query.dateColumn }),
      ...(query.amountColumn === undefined ? {} : { amountColumn: query.amountColumn }),
      ...(query.debitColumn === undefined ? {} : { debitColumn: query.debitColumn }),
      ...(query.creditColumn === undefined ? {} : { creditColumn: query.creditColumn }),
      ...(query.nameColumn === undefined ? {} : { nameColumn: query.nameColumn }),
      ...(query.notesColumn === undefined ? {} : { notesColumn: query.notesColumn }),
      ...(query.dateFormat === undefined ? {} : { dateFormat: query.dateFormat }),
      ...(query.decimalComma === undefined ? {} : { decimalComma: query.decimalComma === 'true' }),
      ...(format === 'csv' && body.charset !== undefined ? { charset: body.charset } : {}),
    };
    const statement = { userId: context.userId, accountId, format, options, file: body.bytes } as const;
    if (query.dryRun === 'true') {
      reply.code(200);
      return responseOf(await this.imports.dryRun(statement, context.now));
    }
    return responseOf(await this.imports.queue({ ...statement, importId: newEntityId(context, 'statement-import'), correlationId: trace.correlationId, requestId: trace.requestId, now: context.now }));
  }

  @Get('imports/:importId')
  @ApiOperation({ operationId: 'getImport', summary: 'A statement import: its status and counts as its job goes' })
  @ApiOkResponse({ type: StatementImportResponse })
  @ApiErrors(401, 403, 404)
  async get(@CurrentPrincipal() principal: Principal, @UuidParam('importId', 'Import') importId: string): Promise<StatementImportResponse> {
    const found = await importOf(this.imports.db, principal.user.id, importId);
    if (!found) throw new NotFoundError('Import');
    return responseOf(found);
  }
}

function responseOf(found: StatementImport): StatementImportResponse {
  return { ...found, failedRows: [...found.failedRows] };
}
