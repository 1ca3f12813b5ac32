import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import type { BrokerageActivityType } from '../brokerage.events.js';

const SOURCES = ['bank_link', 'brokerage_link', 'manual'];
const ACTIVITY_TYPES: BrokerageActivityType[] = ['BUY', 'SELL', 'DIVIDEND', 'FEE', 'CONTRIBUTION', 'TRANSFER'];
/**
 * Why strings here: the spec types the brokerage overview's money (balances, activity amounts) and
 * the brokerage account list's balances as `string or null`. GET /activities and GET
 * /portfolio/snapshots give the same amounts as JSON numbers, as the spec's samples type those.
 */
const DECIMAL =
  'A decimal string, exact and without trailing zeros: the spec types the brokerage overview’s and the brokerage account list’s money as strings. ' +
  'GET /activities and GET /portfolio/snapshots give the same amounts as JSON numbers, as the spec types those.';
const NUMBER = 'A JSON number (at most 4 decimals), as the spec types this list; the brokerage overview carries the same amount as a decimal string.';
const NULLABLE_DECIMAL = { type: 'string', nullable: true, example: '3405.84', description: DECIMAL } as const;
const NULLABLE_TIMESTAMP = { type: 'string', format: 'date-time', nullable: true } as const;

export class BrokerageAccountDetailsResponse {
  @ApiProperty({ description: "The provider's account id (brokerageAccountId; a bank-linked account's linkAccountId); a manual account's own id." }) id!: string;
  @ApiProperty({ ...NULLABLE_DECIMAL, description: `The account's total value: cash + Σ positions' marketValue, as of lastSync; null before the first sync. ${DECIMAL}` }) balance!: string | null;
  @ApiProperty({ ...NULLABLE_TIMESTAMP, description: 'When the provider valued the account.' }) lastSync!: string | null;
}

export class BrokerageAccountBalanceResponse {
  @ApiProperty({ format: 'uuid', description: 'The balance’s id (the same in the overview’s balances).' }) id!: string;
  @ApiProperty(NULLABLE_DECIMAL) buyingPower!: string | null;
  @ApiProperty(NULLABLE_DECIMAL) cash!: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'USD' }) currencyCode!: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'US Dollar' }) currencyName!: string | null;
  @ApiProperty(NULLABLE_TIMESTAMP) lastSync!: string | null;
}

export class BrokerageAccountListItemResponse {
  @ApiProperty({ format: 'uuid', description: 'The account’s one id: the same in GET /accounts and every accountId.' }) id!: string;
  @ApiProperty({ type: 'string', nullable: true }) name!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) institutionName!: string | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    example: 'roth_ira',
    description: "The provider's account type (individual, roth_ira, traditional_ira, 401k); for an investment account made by hand or bank-linked, its subtype (brokerage, ira, roth, 401k, …).",
  })
  accountType!: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'open', description: "The provider's account status: open, closed; `open` for an account made by hand or bank-linked (a deleted one leaves the list)." })
  accountStatus!: string | null;
  @ApiProperty({ enum: SOURCES, description: '`brokerage_link`: a brokerage connection brought it; `manual`: made by hand (POST /accounts, type investment); `bank_link`: an investment account of a bank-link item.' })
  source!: string;
  @ApiProperty({ description: 'The brokerage authorization is disabled: reconnect with POST /brokerage/connect {reconnectAuthorizationId: brokerageAuthorizationId}. Always false for manual and bank-link accounts.' })
  needsReauth!: boolean;
  @ApiProperty({ type: 'string', nullable: true, description: "The provider's authorization id, used as reconnectAuthorizationId; null for manual and bank-link accounts." }) brokerageAuthorizationId!: string | null;
  @ApiProperty({ type: BrokerageAccountDetailsResponse, nullable: true, description: 'For a manual or bank-link account: its own balance, and lastSync null (no brokerage sync values it).' })
  accountDetails!: BrokerageAccountDetailsResponse | null;
  @ApiProperty({ type: [BrokerageAccountBalanceResponse], description: 'The latest valuation’s balance (cash, buying power); empty before the first sync, and always for manual and bank-link accounts (no provider valuation).' })
  balances!: BrokerageAccountBalanceResponse[];
  @ApiPropertyOptional({ description: 'A bank-link account’s provider account id; absent for brokerage and manual accounts.' }) linkAccountId?: string;
}

export class BrokerageAccountListResponse {
  @ApiProperty({ type: [BrokerageAccountListItemResponse] }) accounts!: BrokerageAccountListItemResponse[];
}

export class BrokerageBalanceResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) accountId!: string;
  @ApiProperty({ format: 'uuid' }) userId!: string;
  @ApiProperty(NULLABLE_DECIMAL) buyingPower!: string | null;
  @ApiProperty(NULLABLE_DECIMAL) cash!: string | null;
  @ApiProperty(NULLABLE_TIMESTAMP) createdAt!: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'USD' }) currencyCode!: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'US Dollar' }) currencyName!: string | null;
  @ApiProperty(NULLABLE_TIMESTAMP) lastSync!: string | null;
  @ApiProperty(NULLABLE_TIMESTAMP) updatedAt!: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: "The provider's account id." }) brokerageAccountId!: string | null;
}

export class BrokerageActivityResponse {
  @ApiProperty({ format: 'uuid' }) accountId!: string;
  @ApiProperty({ type: 'string', nullable: true, description: "The provider's activity id." }) activityId!: string | null;
  @ApiProperty({ ...NULLABLE_DECIMAL, description: `Signed effect on cash, fees included (BUY and FEE negative). ${DECIMAL}` }) amount!: string | null;
  @ApiProperty({ ...NULLABLE_TIMESTAMP, description: 'When the sync imported it.' }) createdAt!: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'USD' }) currencyCode!: string | null;
  @ApiProperty({ format: 'uuid', description: 'The service’s id of the activity (the same in GET /activities).' }) id!: string;
  @ApiProperty({ enum: ACTIVITY_TYPES }) type!: string;
  @ApiProperty({ type: 'string', nullable: true }) symbol!: string | null;
  @ApiProperty() description!: string;
  @ApiProperty(NULLABLE_DECIMAL) fee!: string | null;
  @ApiProperty(NULLABLE_DECIMAL) price!: string | null;
  @ApiProperty(NULLABLE_DECIMAL) units!: string | null;
  @ApiProperty({ format: 'date' }) tradeDate!: string;
  @ApiProperty({ format: 'date' }) settlementDate!: string;
}

export class BrokeragePositionResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) accountId!: string;
  @ApiProperty() symbol!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ example: 'USD' }) currency!: string;
  @ApiProperty({ example: '20', description: DECIMAL }) units!: string;
  @ApiProperty({ example: '250', description: `Average cost per unit still held. ${DECIMAL}` }) averagePrice!: string;
  @ApiProperty({ example: '260.1', description: DECIMAL }) price!: string;
  @ApiProperty({ example: '5202', description: `units × price, rounded to the cent: these add up to the account balance minus cash. ${DECIMAL}` }) marketValue!: string;
}

export class OverviewPortfolioSnapshotResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) accountId!: string;
  @ApiProperty({ format: 'date' }) date!: string;
  @ApiProperty({ example: '10332.24', description: DECIMAL }) totalValue!: string;
  @ApiProperty({ example: '3405.84', description: DECIMAL }) cashValue!: string;
  @ApiProperty({ example: '6926.4', description: DECIMAL }) holdingsValue!: string;
  @ApiProperty({ example: 'USD' }) currency!: string;
}

const byAccount = (model: new () => unknown, what: string) => ({
  type: 'object',
  additionalProperties: { type: 'array', items: { $ref: getSchemaPath(model) } },
  description: `Every brokerage account's id → its ${what} (an empty array when it has none): the same objects as the array.`,
}) as const;

export const OVERVIEW_ACTIVITIES_PER_ACCOUNT = 50;
export const OVERVIEW_SNAPSHOTS_PER_ACCOUNT = 30;

@ApiExtraModels(BrokerageBalanceResponse, BrokerageActivityResponse, BrokeragePositionResponse)
@ApiSchema({ description: `Money, prices and units in the overview are decimal strings (${DECIMAL})` })
export class BrokerageOverviewResponse {
  @ApiProperty({ type: [BrokerageBalanceResponse], description: "Each account's latest balance." }) balances!: BrokerageBalanceResponse[];
  @ApiProperty({ type: [BrokerageActivityResponse], description: `Each account's latest ${OVERVIEW_ACTIVITIES_PER_ACCOUNT} activities, newest first; GET /activities pages through all of them.` })
  activities!: BrokerageActivityResponse[];
  @ApiProperty({ type: [BrokeragePositionResponse], description: "Each account's positions of its latest valuation." }) positions!: BrokeragePositionResponse[];
  @ApiProperty({ type: [BrokerageAccountListItemResponse], description: 'As in GET /brokerage/accounts.' }) accounts!: BrokerageAccountListItemResponse[];
  @ApiProperty({ type: [OverviewPortfolioSnapshotResponse], description: `Each account's latest ${OVERVIEW_SNAPSHOTS_PER_ACCOUNT} daily snapshots, oldest first; GET /portfolio/snapshots has the whole history.` })
  portfolioSnapshots!: OverviewPortfolioSnapshotResponse[];
  @ApiProperty(byAccount(BrokerageBalanceResponse, 'balances')) balancesByAccount!: Record<string, BrokerageBalanceResponse[]>;
  @ApiProperty(byAccount(BrokerageActivityResponse, 'activities')) activitiesByAccount!: Record<string, BrokerageActivityResponse[]>;
  @ApiProperty(byAccount(BrokeragePositionResponse, 'positions')) positionsByAccount!: Record<string, BrokeragePositionResponse[]>;
  @ApiProperty({ type: [String], description: 'The names of the brokerages you have connected, each once, alphabetically.' }) userBrokerages!: string[];
}

export class ActivityListItemResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) accountId!: string;
  @ApiProperty({ enum: ACTIVITY_TYPES }) type!: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'Null for cash movements (contributions, fees, transfers).' }) symbol!: string | null;
  @ApiProperty() description!: string;
  @ApiProperty({ example: 'USD' }) currency!: string;
  @ApiProperty({ description: `Signed effect on cash, fees included: BUY and FEE negative. ${NUMBER}`, example: -2001 }) amount!: number;
  @ApiProperty({ example: 1, description: NUMBER }) fee!: number;
  @ApiProperty({ type: 'number', nullable: true, example: 200, description: NUMBER }) price!: number | null;
  @ApiProperty({ type: 'number', nullable: true, example: 10, description: NUMBER }) units!: number | null;
  @ApiProperty({ format: 'date' }) tradeDate!: string;
  @ApiProperty({ format: 'date' }) settlementDate!: string;
}

export class ActivityListResponse {
  @ApiProperty({ type: [ActivityListItemResponse] }) activities!: ActivityListItemResponse[];
  @ApiProperty({ type: 'integer', minimum: 0, description: 'How many activities match (accountId), over every page.' }) total!: number;
}

export class PortfolioSnapshotResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) accountId!: string;
  @ApiProperty({ format: 'date' }) date!: string;
  @ApiProperty({ example: 10332.24, description: NUMBER }) totalValue!: number;
  @ApiProperty({ example: 3405.84, description: NUMBER }) cashValue!: number;
  @ApiProperty({ example: 6926.4, description: NUMBER }) holdingsValue!: number;
  @ApiProperty({ example: 'USD' }) currency!: string;
}

export class PortfolioSnapshotListResponse {
  @ApiProperty({ type: [PortfolioSnapshotResponse] }) snapshots!: PortfolioSnapshotResponse[];
}
