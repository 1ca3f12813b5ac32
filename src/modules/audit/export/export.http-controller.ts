import { Controller, Get, Inject, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { CurrentPrincipal } from '../../../infrastructure/http/api-key.guard.js';
import { EVENT_LOG, type EventLog } from '../../../infrastructure/event-store/event-log.port.js';
import type { EventStore } from '../../../infrastructure/event-store/event-store.port.js';
import { ApiErrors } from '../../../infrastructure/http/openapi-errors.js';
import { EVENT_STORE } from '../../../infrastructure/runtime/tokens.js';
import type { Principal } from '../../identity/identity.store.js';
import { ExportLineResponse } from './export.responses.js';
import { userExport } from './user-export.js';

export const NDJSON = 'application/x-ndjson';

@ApiTags('Audit')
@ApiBearerAuth('bearerAuth')
@Controller('export')
export class ExportHttpController {
  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'exportHistory',
    summary: 'Your whole history: every event of your streams, in order, as JSON lines',
    description:
      'Streams every event appended on your behalf — up to the newest when the export starts — one JSON object per line (`application/x-ndjson`), in the order the service applied them. ' +
      'Each line is the event as stored, with its stream, revision and hash chain links, so a file can be checked without the service: each `hash` is SHA-256 over `previousHash` and the event’s ' +
      'RFC 8785 JSON. Folding the lines of one stream gives what the API shows for it.',
  })
  @ApiExtraModels(ExportLineResponse)
  @ApiOkResponse({ description: 'One line per event (the schema of each line).', content: { [NDJSON]: { schema: { $ref: getSchemaPath(ExportLineResponse) } } } })
  @ApiErrors(401, 403)
  async export(@CurrentPrincipal() principal: Principal): Promise<StreamableFile> {
    const stream = await userExport(this.log, this.store, principal.user.id);
    return new StreamableFile(stream, { type: `${NDJSON}; charset=utf-8`, disposition: 'attachment; filename="ledgerline-export.ndjson"' });
  }
}
