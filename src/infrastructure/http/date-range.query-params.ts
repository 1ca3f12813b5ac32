import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsCalendarDate } from './validators.js';

/** `startDate` / `endDate` as every list operation takes them: inclusive calendar days. */
export class DateRangeQuery {
  @ApiPropertyOptional({ format: 'date', description: 'Inclusive, YYYY-MM-DD.' })
  @IsOptional()
  @IsCalendarDate()
  startDate?: string;

  @ApiPropertyOptional({ format: 'date', description: 'Inclusive, YYYY-MM-DD.' })
  @IsOptional()
  @IsCalendarDate()
  endDate?: string;
}
