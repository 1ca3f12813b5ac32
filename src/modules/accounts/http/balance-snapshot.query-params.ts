import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { IsCalendarDate } from '../../../infrastructure/http/validators.js';

export class BalanceSnapshotQuery {
  @ApiPropertyOptional({ format: 'uuid', description: 'One account; omitted: every non-brokerage account.' })
  @IsOptional()
  @IsUUID()
  accountId?: string;

  @ApiPropertyOptional({ format: 'date', description: 'Inclusive, YYYY-MM-DD.' })
  @IsOptional()
  @IsCalendarDate()
  startDate?: string;

  @ApiPropertyOptional({ format: 'date', description: 'Inclusive, YYYY-MM-DD.' })
  @IsOptional()
  @IsCalendarDate()
  endDate?: string;
}
