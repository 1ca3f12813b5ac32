import { ApiProperty } from '@nestjs/swagger';
import { TAG_COLORS } from '../../tags/tag.js';
import { ACTIVITY_FIELDS, ACTIVITY_KINDS } from '../activity/transaction-activity.js';
import { LOCKED_FIELD_OF, PAYMENT_CHANNELS } from '../transaction.js';

const LOCKED_FIELDS = Object.values(LOCKED_FIELD_OF);
const ANY_JSON = [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'object' }, { type: 'array', items: {} }, { type: 'null' }];

export class LocationResponse {
  @ApiProperty({ type: 'string', nullable: true }) address!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) city!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) country!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) postal_code!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) region!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) store_number!: string | null;
  @ApiProperty({ type: 'number', nullable: true }) lat!: number | null;
  @ApiProperty({ type: 'number', nullable: true }) lon!: number | null;
}

export class TransactionCategoryResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() iconKey!: string;
  @ApiProperty({ type: 'string', nullable: true }) systemKey!: string | null;
  @ApiProperty({ format: 'uuid', description: 'The group the category is in now.' }) groupId!: string;
  @ApiProperty() groupName!: string;
  @ApiProperty({ type: 'string', nullable: true }) groupSystemKey!: string | null;
}

export class TransactionTagResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: TAG_COLORS }) color!: string;
}

export class CounterpartyResponse {
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['merchant', 'financial_institution', 'payment_app', 'marketplace', 'payment_terminal', 'income_source'] }) type!: string;
  @ApiProperty({ type: 'string', nullable: true }) logo_url!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) website!: string | null;
  @ApiProperty({ type: 'string', nullable: true, required: false }) confidence_level?: string | null;
  @ApiProperty({ type: 'string', nullable: true, required: false }) entity_id?: string | null;
}

export class TransferResponse {
  @ApiProperty({ format: 'uuid', description: 'The other side of the transfer.' }) transactionId!: string;
  @ApiProperty({ format: 'uuid', description: "The other side's account." }) accountId!: string;
}

export class SplitPartResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: 'number', description: "With the transaction's sign; the parts sum exactly to its amount." }) amount!: number;
  @ApiProperty({ type: TransactionCategoryResponse, nullable: true, description: 'Spending counts the part under this category; null: uncategorised.' }) category!: TransactionCategoryResponse | null;
  @ApiProperty({ type: 'string', nullable: true }) notes!: string | null;
}

export class TransactionResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) accountId!: string;
  @ApiProperty() accountName!: string;
  @ApiProperty() accountType!: string;
  @ApiProperty({ type: 'string', nullable: true }) accountSubtype!: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'harborpointbank.example', description: "The host of the account's institution site (institutionUrl) without `www.`: the domain to ask a logo service for. Null when the account has no institution site (manual accounts)." })
  accountLogoDomain!: string | null;
  @ApiProperty({ type: 'number', description: 'Signed: positive in, negative out.' }) amount!: number;
  @ApiProperty({ type: 'string', format: 'date', nullable: true }) authorizedDate!: string | null;
  @ApiProperty({ format: 'date' }) date!: string;
  @ApiProperty({ type: TransactionCategoryResponse, nullable: true }) category!: TransactionCategoryResponse | null;
  @ApiProperty({ type: [CounterpartyResponse], nullable: true }) counterparties!: CounterpartyResponse[] | null;
  @ApiProperty({ type: 'string', nullable: true, description: "The logo of the account's institution, as GET /accounts shows it (`logo`); null for manual accounts." }) institutionLogo!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) institutionName!: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: "The site of the account's institution, as GET /accounts shows it (`url`); null for manual accounts." }) institutionUrl!: string | null;
  @ApiProperty({ type: LocationResponse, nullable: true }) location!: LocationResponse | null;
  @ApiProperty({ type: 'array', items: { type: 'string', enum: LOCKED_FIELDS } }) lockedFields!: string[];
  @ApiProperty({ type: 'string', nullable: true }) logoUrl!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) merchantName!: string | null;
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'string', nullable: true }) notes!: string | null;
  @ApiProperty({ type: 'string', enum: PAYMENT_CHANNELS, nullable: true }) paymentChannel!: string | null;
  @ApiProperty() pending!: boolean;
  @ApiProperty({ type: 'string', nullable: true }) linkAccountId!: string | null;
  @ApiProperty({ enum: ['bank_link', 'manual'] }) source!: string;
  @ApiProperty({ type: [String], format: 'uuid' }) tagIds!: string[];
  @ApiProperty({ type: [TransactionTagResponse], description: 'The tags of tagIds as they are now (a rename shows at once); deleted tags are never shown.' }) tags!: TransactionTagResponse[];
  @ApiProperty({ type: 'string', nullable: true }) website!: string | null;
  @ApiProperty({
    type: TransferResponse,
    nullable: true,
    description: 'Set when this is one side of a transfer between two of your accounts (paired automatically or by hand); such a transaction counts neither as spending nor as income.',
  })
  transfer!: TransferResponse | null;
  @ApiProperty({ type: [SplitPartResponse], description: 'The parts of a split transaction, each counted by spending under its own category; `[]` when not split.' }) splits!: SplitPartResponse[];
}

export class TransactionPageResponse {
  @ApiProperty({ type: [TransactionResponse] }) transactions!: TransactionResponse[];
  @ApiProperty() hasMore!: boolean;
  @ApiProperty({ type: 'string', nullable: true, description: 'Pass as `cursor` for the next page; null on the last page.' }) nextCursor!: string | null;
}

export class TransactionActivityEventResponse {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: [...ACTIVITY_KINDS], description: '`created`: a value the transaction had at creation (no `oldValue`); `edited`: a change; `deleted`: a value it had when deleted, removed by the provider or replaced by its posted transaction (no `newValue`).' })
  kind!: string;
  @ApiProperty({ enum: ['user', 'system'] }) actor!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ enum: [...ACTIVITY_FIELDS], description: 'An editable field (the lockedFields names), `transfer` (paired: `{transactionId, accountId}`, unpaired: null) or `splits` (the parts, `[]` when not split).' }) field!: string;
  @ApiProperty({ required: false, description: 'The value before the change (any JSON); absent on `created` entries.', anyOf: ANY_JSON }) oldValue?: unknown;
  @ApiProperty({ required: false, description: 'The value after the change (any JSON); absent on `deleted` entries.', anyOf: ANY_JSON }) newValue?: unknown;
  @ApiProperty({ description: 'The X-Request-Id of the request (or the job run) that made the change.' }) requestId!: string;
  @ApiProperty({ description: 'The X-Correlation-Id it belonged to: the client\'s own, else the request id of the request that started it.' }) correlationId!: string;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'The rule whose change it is (actor `system`); null for every other change.' }) ruleId!: string | null;
}

export class TransactionActivityResponse {
  @ApiProperty({ type: [TransactionActivityEventResponse] }) events!: TransactionActivityEventResponse[];
}
