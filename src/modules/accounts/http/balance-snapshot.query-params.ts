import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { DateRangeQuery } from '../../../infrastructure/http/date-range.query-params.js';

export class BalanceSnapshotQuery extends DateRangeQuery {
  @ApiPropertyOptional({ format: 'uuid', description: 'One account; omitted: every non-brokerage account.' })
  @IsOptional()
  @IsUUID()
  accountId?: string;
}
