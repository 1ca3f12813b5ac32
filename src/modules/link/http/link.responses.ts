import { ApiProperty } from '@nestjs/swagger';
import { ACCOUNT_TYPES } from '../../accounts/account.js';

export class LinkTokenResponse {
  @ApiProperty({ description: 'Opens the provider’s link flow.' }) linkToken!: string;
  @ApiProperty({ format: 'date-time' }) expiration!: string;
}

export class SandboxPublicTokenResponse {
  @ApiProperty({ description: 'Exchange it with POST /link/items; single use, valid 30 minutes.' }) publicToken!: string;
}

export class LinkItemResponse {
  @ApiProperty({ format: 'uuid', description: 'The service’s id of the item.' }) id!: string;
  @ApiProperty({ description: 'The provider’s item id: the same value in accounts, alerts and every {linkItemId} path.' }) linkItemId!: string;
  @ApiProperty({ format: 'uuid' }) userId!: string;
  @ApiProperty({ type: 'string', nullable: true }) institutionId!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) institutionName!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) institutionLogo!: string | null;
  @ApiProperty({ type: [String], nullable: true }) availableProducts!: string[] | null;
  @ApiProperty({ type: [String], nullable: true }) billedProducts!: string[] | null;
  @ApiProperty({ description: 'The bank needs the user to sign in again (reconnect with POST /link/token {reconnectLinkItemId}).' }) needsReauth!: boolean;
  @ApiProperty() newAccountsAvailable!: boolean;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) pendingDisconnectAt!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class LinkItemListResponse {
  @ApiProperty({ type: [LinkItemResponse] }) items!: LinkItemResponse[];
}

export class LinkItemAlertResponse {
  @ApiProperty() linkItemId!: string;
  @ApiProperty() institutionName!: string;
  @ApiProperty({ type: 'string', nullable: true }) institutionLogo!: string | null;
  @ApiProperty() needsReauth!: boolean;
  @ApiProperty() newAccountsAvailable!: boolean;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) pendingDisconnectAt!: string | null;
}

export class LinkItemAlertListResponse {
  @ApiProperty({ type: [LinkItemAlertResponse] }) alerts!: LinkItemAlertResponse[];
}

export class LinkAccountResponse {
  @ApiProperty({ format: 'uuid', description: 'The account’s id in GET /accounts.' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'string', nullable: true }) officialName!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) mask!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) subtype!: string | null;
  @ApiProperty({ enum: ACCOUNT_TYPES, description: 'In the service’s vocabulary, as in GET /accounts.' }) type!: string;
  @ApiProperty({ type: 'string', nullable: true }) linkAccountId!: string | null;
  @ApiProperty() linkItemId!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class LinkAccountListResponse {
  @ApiProperty({ type: [LinkAccountResponse] }) accounts!: LinkAccountResponse[];
}
