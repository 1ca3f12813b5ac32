import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { DateRangeQuery } from '../../../infrastructure/http/date-range.query-params.js';

export class BalanceSnapshotQuery extends DateRangeQuery {
  @ApiPropertyOptional({ format: 'uuid', description: 'One of your accounts (any but brokerage-linked ones, whose value series is GET /portfolio/snapshots); omitted: all of them. Another user’s, a deleted or a brokerage-linked account: 404.' })
  @IsOptional()
  @IsUUID()
  accountId?: string;
}
