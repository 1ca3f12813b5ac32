import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMinSize, ArrayUnique, IsArray, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { DEFAULT_API_KEY_SCOPES, type Scope, SCOPES } from '../api-key.js';

export class CreateApiKeyRequest {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'Budget spreadsheet' })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name!: string;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...SCOPES] },
    minItems: 1,
    uniqueItems: true,
    default: [...DEFAULT_API_KEY_SCOPES],
    example: ['read'],
    description: '`read`, `write`, and `keys` (key management: issuing, listing, revoking keys), which is never given unless asked for.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(SCOPES, { each: true })
  scopes?: Scope[];
}
