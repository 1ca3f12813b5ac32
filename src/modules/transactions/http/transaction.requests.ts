import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsNumber, IsObject, IsOptional, IsString, IsUUID, Max, MaxLength, Min, MinLength, ValidateIf, ValidateNested } from 'class-validator';
import { IsCalendarDate, IsMoneyAmount } from '../../../infrastructure/http/validators.js';
import { PAYMENT_CHANNELS, type PaymentChannel } from '../transaction.js';

const nullable = () => ValidateIf((_object, value) => value !== null && value !== undefined);

export class LocationRequest {
  @ApiPropertyOptional({ type: 'string', nullable: true }) @nullable() @IsString() @MaxLength(500) address?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true }) @nullable() @IsString() @MaxLength(200) city?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true }) @nullable() @IsString() @MaxLength(100) country?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true }) @nullable() @IsString() @MaxLength(20) postal_code?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true }) @nullable() @IsString() @MaxLength(100) region?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true }) @nullable() @IsString() @MaxLength(50) store_number?: string | null;
  @ApiPropertyOptional({ type: 'number', nullable: true, minimum: -90, maximum: 90 }) @nullable() @Max(90) @Min(-90) @IsNumber({ allowNaN: false, allowInfinity: false }) lat?: number | null;
  @ApiPropertyOptional({ type: 'number', nullable: true, minimum: -180, maximum: 180 }) @nullable() @Max(180) @Min(-180) @IsNumber({ allowNaN: false, allowInfinity: false }) lon?: number | null;
}

/** Fields shared by create and edit; on edit every one is optional and `null` restores it. */
class TransactionFields {
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 500 })
  @nullable() @IsString() @MaxLength(500)
  merchantName?: string | null;

  @ApiPropertyOptional({ type: 'string', format: 'uuid', nullable: true, description: 'A category id of yours (system taxonomy ids are stable per user).' })
  @nullable() @IsUUID()
  categoryId?: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 100000 })
  @nullable() @IsString() @MaxLength(100000)
  notes?: string | null;

  @ApiPropertyOptional({ type: 'string', enum: PAYMENT_CHANNELS, nullable: true })
  @nullable() @IsIn(PAYMENT_CHANNELS)
  paymentChannel?: PaymentChannel | null;

  @ApiPropertyOptional({ type: LocationRequest, nullable: true })
  @nullable() @IsObject() @ValidateNested() @Type(() => LocationRequest)
  location?: LocationRequest | null;

  @ApiPropertyOptional({ type: [String], format: 'uuid', maxItems: 100, nullable: true, description: 'Tag ids of yours; the whole set.' })
  @nullable() @IsUUID('all', { each: true }) @ArrayMaxSize(100) @IsArray()
  tagIds?: string[] | null;
}

export class CreateTransactionRequest extends TransactionFields {
  @ApiProperty({ format: 'uuid', description: 'A manual account of yours.' }) @IsUUID() accountId!: string;
  @ApiProperty({ type: 'number', description: 'Signed: positive is money in, negative money out; at most 4 decimals.', example: -12.5 }) @IsMoneyAmount() amount!: number;
  @ApiProperty({ format: 'date', example: '2026-11-22' }) @IsCalendarDate() date!: string;
  @ApiProperty({ minLength: 1, maxLength: 500, example: 'Corner Cafe' }) @IsString() @MinLength(1) @MaxLength(500) name!: string;
  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() pending?: boolean;
  @ApiPropertyOptional({ type: 'string', format: 'date', nullable: true }) @nullable() @IsCalendarDate() authorizedDate?: string | null;

}

export class PatchTransactionRequest extends TransactionFields {
  @ApiPropertyOptional({ type: 'string', nullable: true, minLength: 1, maxLength: 500 }) @nullable() @IsString() @MinLength(1) @MaxLength(500) name?: string | null;
  @ApiPropertyOptional({ type: 'number', nullable: true, description: 'Signed, at most 4 decimals.' }) @nullable() @IsMoneyAmount() amount?: number | null;
  @ApiPropertyOptional({ type: 'string', format: 'date', nullable: true }) @nullable() @IsCalendarDate() date?: string | null;

}
