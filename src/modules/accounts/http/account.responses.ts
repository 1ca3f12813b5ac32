import { ApiProperty, OmitType } from '@nestjs/swagger';
import { ACCOUNT_TYPES } from '../account.js';

const SOURCES = ['bank_link', 'brokerage_link', 'manual'];

export class AccountListItemResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: 'string', nullable: true }) mask!: string | null;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: SOURCES }) source!: string;
  @ApiProperty({ type: 'string', nullable: true }) subtype!: string | null;
  @ApiProperty({ enum: ACCOUNT_TYPES }) type!: string;
  @ApiProperty({ type: 'string', nullable: true }) linkItemId!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) currency!: string | null;
  @ApiProperty({ type: 'number', nullable: true }) current!: number | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) updatedAt!: string | null;
  @ApiProperty({ type: 'number', nullable: true }) userOverrideCreditLimit!: number | null;
  @ApiProperty({ type: 'string', nullable: true }) institutionName!: string | null;
  @ApiProperty() newAccountsAvailable!: boolean;
  @ApiProperty({ type: 'string', nullable: true }) logo!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) url!: string | null;
  @ApiProperty() canAddInvestments!: boolean;
  @ApiProperty({ type: 'number', nullable: true }) creditLimit!: number | null;
  @ApiProperty() hasInvestments!: boolean;
  @ApiProperty() hasLiabilities!: boolean;
  @ApiProperty() needsReauth!: boolean;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) pendingDisconnectAt!: string | null;
}

export class AccountListResponse {
  @ApiProperty({ type: [AccountListItemResponse] }) accounts!: AccountListItemResponse[];
}

/** The spec's detail shares the list item's fields but its flags, and adds its own. */
export class AccountDetailResponse extends OmitType(AccountListItemResponse, ['canAddInvestments', 'hasInvestments', 'hasLiabilities', 'needsReauth'] as const) {
  @ApiProperty({ type: 'number', nullable: true }) available!: number | null;
  @ApiProperty({ type: [String], nullable: true }) billedProducts!: string[] | null;
  @ApiProperty({ type: 'string', nullable: true }) institutionId!: string | null;
  @ApiProperty() hasInvestmentAccounts!: boolean;
}

/**
 * The spec's create sample (id, name, type, institution, mask, currency, balance, creditLimit)
 * and, beside it, every field of the list item: either answer can be used the same way.
 */
export class ManualAccountCreatedResponse extends AccountListItemResponse {
  @ApiProperty({ type: 'string', nullable: true, description: 'The institution name given at creation: the same as institutionName (the spec’s create sample calls it institution).' })
  institution!: string | null;
  @ApiProperty({ type: 'number', description: 'The balance given at creation: the same as current (the spec’s create sample calls it balance).' }) balance!: number;
}

export class BalanceSnapshotResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) accountId!: string;
  @ApiProperty({ format: 'date', example: '2026-11-22' }) date!: string;
  @ApiProperty({ type: 'number' }) currentBalance!: number;
  @ApiProperty({ type: 'number' }) availableBalance!: number;
  @ApiProperty({ type: 'number', nullable: true, description: 'The credit limit that applied that day (your own if you set one, else the institution’s); null for an account without one (every account but a credit card).' })
  creditLimit!: number | null;
}

export class BalanceSnapshotListResponse {
  @ApiProperty({ type: [BalanceSnapshotResponse] }) snapshots!: BalanceSnapshotResponse[];
}
