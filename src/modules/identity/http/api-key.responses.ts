import { ApiProperty } from '@nestjs/swagger';
import { SCOPES } from '../api-key.js';

export class ApiKeyResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'The first characters of the key, to recognise it', example: 'pf_live_a1B2' }) prefix!: string;
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...SCOPES] } }) scopes!: string[];
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'To the minute' }) lastUsedAt!: string | null;
}

export class ApiKeyListResponse {
  @ApiProperty({ type: [ApiKeyResponse] }) apiKeys!: ApiKeyResponse[];
}

export class CreatedApiKeyResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'The key itself: shown this once, stored only as a hash', pattern: '^pf_live_[0-9A-Za-z]{40}$' }) key!: string;
  @ApiProperty({ example: 'pf_live_a1B2' }) prefix!: string;
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...SCOPES] } }) scopes!: string[];
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}
