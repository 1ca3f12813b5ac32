import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsPositive, IsString, Matches, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { CREDIT_LIMIT_NOT_ALLOWED, INVALID_SUBTYPE } from '../../../core/rule-violation.js';
import { FollowsRule, IsMoneyAmount } from '../../../infrastructure/http/validators.js';
import { ACCOUNT_TYPES, type AccountType, SUBTYPES_BY_TYPE } from '../account.js';
import { canHaveCreditLimit, CREDIT_LIMIT_MESSAGE, isSubtypeOf, subtypeMessage } from '../account.decider.js';

const ALL_SUBTYPES = [...new Set(Object.values(SUBTYPES_BY_TYPE).flat())];

/** The rules below judge the pair only once `type` itself is valid (else its own issue says so). */
const knownType = (request: Record<string, unknown>): AccountType | undefined =>
  ACCOUNT_TYPES.includes(request.type as AccountType) ? (request.type as AccountType) : undefined;

export class CreateManualAccountRequest {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Emergency fund' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @ApiProperty({ enum: ACCOUNT_TYPES })
  @IsIn(ACCOUNT_TYPES)
  type!: AccountType;

  @ApiProperty({
    enum: ALL_SUBTYPES,
    description: 'Must belong to the vocabulary of `type` (see the README); otherwise a 422 issue with `params.code` `INVALID_SUBTYPE`.',
    example: 'savings',
  })
  @FollowsRule(INVALID_SUBTYPE, (subtype, request) => {
    const type = knownType(request);
    return type === undefined || isSubtypeOf(type, subtype as string);
  }, (request) => (knownType(request) ? subtypeMessage(knownType(request)!) : 'subtype must belong to the vocabulary of type'))
  @IsString()
  subtype!: string;

  @ApiProperty({ type: 'number', description: 'Signed: positive for assets, negative for liabilities; at most 4 decimals.', example: 2500 })
  @IsMoneyAmount()
  currentBalance!: number;

  @ApiPropertyOptional({
    type: 'number',
    nullable: true,
    description: 'Greater than 0; only for credit_card accounts (else a 422 issue with `params.code` `CREDIT_LIMIT_NOT_ALLOWED`). Omitted or null: none.',
    example: 5000,
  })
  @Transform(({ value }: { value: unknown }) => (value === null ? undefined : value))
  @IsOptional()
  @FollowsRule(CREDIT_LIMIT_NOT_ALLOWED, (_limit, request) => {
    const type = knownType(request);
    return type === undefined || canHaveCreditLimit(type);
  }, () => CREDIT_LIMIT_MESSAGE)
  @IsPositive()
  @IsMoneyAmount()
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
  @IsPositive()
  @IsMoneyAmount()
  creditLimit?: number | null;
}

export class PatchManualBalanceRequest {
  @ApiProperty({ type: 'number', description: 'Signed, stored as given, up to 4 decimal places.', example: -120.5 })
  @IsMoneyAmount()
  current!: number;
}
