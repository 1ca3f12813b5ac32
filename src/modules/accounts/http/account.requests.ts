import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsPositive, IsString, Matches, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { IsMoneyAmount } from '../../../infrastructure/http/validators.js';
import { ACCOUNT_TYPES, type AccountType, SUBTYPES_BY_TYPE } from '../account.js';

const ALL_SUBTYPES = [...new Set(Object.values(SUBTYPES_BY_TYPE).flat())];

export class CreateManualAccountRequest {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Emergency fund' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @ApiProperty({ enum: ACCOUNT_TYPES })
  @IsIn(ACCOUNT_TYPES)
  type!: AccountType;

  @ApiProperty({ enum: ALL_SUBTYPES, description: 'Must belong to the vocabulary of `type` (see the README).', example: 'savings' })
  @IsString()
  subtype!: string;

  @ApiProperty({ type: 'number', description: 'Signed: positive for assets, negative for liabilities; at most 4 decimals.', example: 2500 })
  @IsMoneyAmount()
  currentBalance!: number;

  @ApiPropertyOptional({ type: 'number', description: 'Greater than 0; only for credit_card accounts.', example: 5000 })
  @IsOptional()
  @IsMoneyAmount()
  @IsPositive()
  creditLimit?: number;

  @ApiPropertyOptional({ pattern: '^[A-Z]{3}$', default: 'USD', example: 'USD' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code of 3 upper-case letters' })
  currency?: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 8, example: '4242' })
  @IsOptional()
  @IsString()
  @MaxLength(8)
  mask?: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 200, example: 'Credit Union' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  institutionName?: string | null;
}

export class PatchAccountRequest {
  @ApiPropertyOptional({ type: 'number', nullable: true, description: 'Your own credit limit, greater than 0; null clears it; omitted leaves it unchanged.' })
  @ValidateIf((_request, value) => value !== null && value !== undefined)
  @IsMoneyAmount()
  @IsPositive()
  creditLimit?: number | null;
}

export class PatchManualBalanceRequest {
  @ApiProperty({ type: 'number', description: 'Signed, stored as given, up to 4 decimal places.', example: -120.5 })
  @IsMoneyAmount()
  current!: number;
}
