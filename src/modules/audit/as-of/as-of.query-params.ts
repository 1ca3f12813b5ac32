import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsInstant } from '../../../infrastructure/http/validators.js';

/** `?asOf=`: the entity as it stood at an instant, folded from its own events (decision 0044). */
export class AsOfQuery {
  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-11-20T12:00:00Z',
    description:
      'An instant (ISO 8601 with its offset, e.g. `2026-11-20T12:00:00Z`): the answer is the entity as it stood then, folded from the events recorded up to it (their `occurredAt`, ' +
      'the service clock when each change was made), with the same fields and ETag (the stream revision it stood at). 404 when it did not exist then; in the future, 422 `too_big` at `["asOf"]`; ' +
      'not a timestamp, 422 `invalid_string`. Category and tag names are the ones they have now.',
  })
  @IsOptional()
  @IsInstant()
  asOf?: string;
}
