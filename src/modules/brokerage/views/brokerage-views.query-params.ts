import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { DateRangeQuery } from '../../../infrastructure/http/date-range.query-params.js';

const ACCOUNT_ID = {
  type: 'string',
  format: 'uuid',
  description: 'One of your brokerage accounts (its id in GET /brokerage/accounts); omitted: all of them. Not one of yours, or not a UUID: 404.',
} as const;

/** The largest offset taken: PostgreSQL's OFFSET is a bigint, and no list comes near it. */
export const MAX_OFFSET = 2_147_483_647;

export class ActivityListQuery {
  // A string, not @IsUUID: an id that names nothing of yours is a 404 (api-decisions §Brokerage), whatever its spelling.
  @ApiPropertyOptional(ACCOUNT_ID)
  @IsOptional()
  @IsString()
  accountId?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 500, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0, description: 'How many activities of the newest-first order to skip.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_OFFSET)
  offset?: number;
}

export class PortfolioSnapshotQuery extends DateRangeQuery {
  @ApiPropertyOptional(ACCOUNT_ID)
  @IsOptional()
  @IsString()
  accountId?: string;
}
