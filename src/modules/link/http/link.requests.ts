import { ApiPropertyOptional, ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

export class CreateLinkTokenRequest {
  @ApiPropertyOptional({ maxLength: 200, description: 'The linkItemId of an item of yours to reconnect (re-authenticate); unknown → 404.' })
  @IsOptional() @IsString() @MinLength(1) @MaxLength(200)
  reconnectLinkItemId?: string;
}

export class CreateSandboxPublicTokenRequest {
  @ApiPropertyOptional({ maxLength: 100, example: 'ins_100001', description: 'A sandbox institution, ins_100001 to ins_100005 (default: one picked at random); another → 400 INSTITUTION_NOT_FOUND.' })
  @IsOptional() @IsString() @MinLength(1) @MaxLength(100)
  institutionId?: string;

  @ApiPropertyOptional({
    maxLength: 200,
    description:
      'The linkToken of POST /link/token the link flow ran with (optional). One issued with reconnectLinkItemId gives a public token for that item ' +
      '(institutionId is then ignored: the item’s own); exchanging it with POST /link/items reconnects the item, adding the account NEW_ACCOUNTS_AVAILABLE announced. ' +
      'One issued without links a new item, as no link token does. Unknown, past its expiration (4 hours), issued to another user, or its item removed since → 400 INVALID_LINK_TOKEN.',
  })
  @IsOptional() @IsString() @MinLength(1) @MaxLength(200)
  linkToken?: string;
}

export class ExchangePublicTokenRequest {
  @ApiProperty({ minLength: 1, maxLength: 200, description: 'The public token the link flow (or POST /sandbox/public-token) gave you; single use, valid 30 minutes, yours only (another user’s → 400 INVALID_PUBLIC_TOKEN).' })
  @IsString() @MinLength(1) @MaxLength(200)
  publicToken!: string;
}
