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

export class ManualAccountCreatedResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ACCOUNT_TYPES }) type!: string;
  @ApiProperty() subtype!: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'Institution name, if given.' }) institution!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) mask!: string | null;
  @ApiProperty() currency!: string;
  @ApiProperty({ type: 'number' }) balance!: number;
  @ApiProperty({ type: 'number', nullable: true }) creditLimit!: number | null;
}

export class BalanceSnapshotResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) accountId!: string;
  @ApiProperty({ format: 'date', example: '2026-11-22' }) date!: string;
  @ApiProperty({ type: 'number' }) currentBalance!: number;
  @ApiProperty({ type: 'number' }) availableBalance!: number;
  @ApiProperty({ type: 'number', description: 'The credit limit that applied that day; 0 for an account without one.' }) creditLimit!: number;
}

export class BalanceSnapshotListResponse {
  @ApiProperty({ type: [BalanceSnapshotResponse] }) snapshots!: BalanceSnapshotResponse[];
}
