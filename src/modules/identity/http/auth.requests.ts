import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

export class SignInRequest {
  @ApiProperty({ description: 'A configured provider: `google`, `github`, or the lower-cased NAME of `OAUTH_<NAME>_*`.', example: 'google', minLength: 1, maxLength: 50 })
  @IsString()
  @MinLength(1)
  @MaxLength(50)
  provider!: string;

  @ApiProperty({ description: "Where the browser returns after signing in: on the service's own origin (PUBLIC_URL) or an origin of ALLOWED_CALLBACK_ORIGINS.", format: 'uri', example: 'https://app.example.com/signed-in', maxLength: 2000 })
  @IsString()
  @MaxLength(2000)
  callbackURL!: string;
}

/** What the provider appends to the redirect URI; anything else it adds is ignored. */
export class OAuthCallbackQuery {
  @ApiPropertyOptional({ description: 'The authorization code (single use)' })
  @IsOptional()
  @IsString()
  code?: string;

  @ApiPropertyOptional({ description: 'The state issued at sign-in (single use, expires after 10 minutes)' })
  @IsOptional()
  @IsString()
  state?: string;

  @ApiPropertyOptional({ description: 'Set by the provider instead of `code` when the sign-in did not happen, e.g. `access_denied`' })
  @IsOptional()
  @IsString()
  error?: string;

  @ApiPropertyOptional({ description: "The provider's explanation of `error`" })
  @IsOptional()
  @IsString()
  error_description?: string;
}
