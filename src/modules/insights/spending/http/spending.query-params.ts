import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { ACCOUNT_TYPES, type AccountType } from '../../../accounts/account.js';
import { DEFAULT_SPENDING_PERIOD, SPENDING_PERIODS, type SpendingPeriod } from '../spending-window.js';

export class CreditSpendingQuery {
  @ApiPropertyOptional({ format: 'uuid', description: 'One account of yours; not a UUID, or not yours (or deleted): 404.' })
  @IsOptional()
  @IsString()
  accountId?: string;

  @ApiPropertyOptional({
    enum: SPENDING_PERIODS,
    default: DEFAULT_SPENDING_PERIOD,
    description:
      'A trailing window ending today in your time zone (`GET /me`): `1w` 7 days including today and `1m` 30, by day; `3m` 91 and `6m` 182, by ISO week; ' +
      '`1y` 365 days, `ytd` from 1 January and `all` from your first posted transaction (in the accounts asked for), by calendar month.',
  })
  @IsOptional()
  @IsIn(SPENDING_PERIODS)
  period?: SpendingPeriod;
}

/** GET /spending/credit is over credit cards: `accountType` may say so, and may not say anything else. */
export class CreditCardSpendingQuery extends CreditSpendingQuery {
  @ApiPropertyOptional({ enum: ['credit_card'], description: 'Only `credit_card`, which this operation always narrows to: any other type is a 422, never ignored.' })
  @IsOptional()
  @IsIn(['credit_card'])
  accountType?: 'credit_card';
}

export class SpendingQuery extends CreditSpendingQuery {
  @ApiPropertyOptional({ enum: ACCOUNT_TYPES, description: 'Only accounts of this type (narrows together with accountId).' })
  @IsOptional()
  @IsIn(ACCOUNT_TYPES)
  accountType?: AccountType;
}
