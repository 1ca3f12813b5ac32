import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsObject, IsString, IsUUID, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { IsMoneyAmount } from '../../../infrastructure/http/validators.js';
import { MAX_SPLIT_PARTS } from './split.js';

const nullable = () => ValidateIf((_object, value) => value !== null && value !== undefined);

export class SplitPartRequest {
  @ApiProperty({ type: 'number', description: "With the transaction's sign, not zero; at most 4 decimals.", example: -30 }) @IsMoneyAmount() amount!: number;
  @ApiPropertyOptional({ type: 'string', format: 'uuid', nullable: true, description: 'A category id of yours; without one the part is uncategorised.' }) @nullable() @IsUUID() categoryId?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 10000 }) @nullable() @IsString() @MaxLength(10000) notes?: string | null;
}

export class PutSplitsRequest {
  @ApiProperty({
    type: [SplitPartRequest],
    maxItems: MAX_SPLIT_PARTS,
    description: `2–${MAX_SPLIT_PARTS} parts summing exactly to the transaction's amount, each with its sign; \`[]\` removes the split.`,
  })
  @IsArray()
  @ArrayMaxSize(MAX_SPLIT_PARTS)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => SplitPartRequest)
  splits!: SplitPartRequest[];
}
