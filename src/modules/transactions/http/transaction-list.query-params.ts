import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { DateRangeQuery } from '../../../infrastructure/http/date-range.query-params.js';
import { CATEGORY_GROUP_KEYS } from '../../categories/system-taxonomy.js';

const asList = ({ value }: { value: unknown }) => (value === undefined ? undefined : Array.isArray(value) ? value : [value]);

export class TransactionListQuery extends DateRangeQuery {
  @ApiPropertyOptional({ type: [String], format: 'uuid', description: 'Repeat the parameter for several accounts. Each must be one of your accounts (not deleted), else 404.' })
  @IsOptional()
  @Transform(asList)
  @IsUUID('all', { each: true })
  accountId?: string[];

  @ApiPropertyOptional({ type: 'array', items: { type: 'string', enum: [...CATEGORY_GROUP_KEYS] }, description: 'Category group systemKey; repeat for several.' })
  @IsOptional()
  @Transform(asList)
  @IsIn(CATEGORY_GROUP_KEYS, { each: true })
  categoryGroup?: string[];

  @ApiPropertyOptional({ format: 'uuid', description: 'Only transactions in this category of yours; not one of your categories: 404.' })
  @IsOptional()
  @IsUUID()
  categoryId?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only transactions carrying this tag of yours; not one of your tags (or deleted): 404.' })
  @IsOptional()
  @IsUUID()
  tagId?: string;

  @ApiPropertyOptional({ description: "Opaque: the previous page's nextCursor." })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 500, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;
}
