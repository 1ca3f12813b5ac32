import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';

export class ConnectBrokerageRequest {
  @ApiPropertyOptional({
    maxLength: 200,
    description:
      'The brokerageAuthorizationId of one of your authorizations to reconnect (while its accounts show needsReauth: true); the portal then repairs that ' +
      'authorization instead of opening a new one. One you do not have → 404.',
  })
  @IsOptional() @IsString() @MinLength(1) @MaxLength(200)
  reconnectAuthorizationId?: string;
}

export class SandboxBrokeragePortalQuery {
  @ApiProperty({ minLength: 1, maxLength: 200, description: 'The session token of the redirectUrl POST /brokerage/connect gave: single use, valid 5 minutes.' })
  @IsString() @MinLength(1) @MaxLength(200) @Matches(/^[\x21-\x7e]+$/, { message: 'session must be printable ASCII' })
  session!: string;
}

export class BrokeragePortalReturnQuery {
  @ApiProperty({ minLength: 1, maxLength: 200, description: 'The session token of the return URL POST /brokerage/connect gave the provider’s portal: single use, valid an hour.' })
  @IsString() @MinLength(1) @MaxLength(200) @Matches(/^[\x21-\x7e]+$/, { message: 'session must be printable ASCII' })
  session!: string;
}
