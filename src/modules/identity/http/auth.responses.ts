import { ApiProperty } from '@nestjs/swagger';

export class SignInResponse {
  @ApiProperty({ description: "The provider's consent screen, with state and a PKCE (S256) challenge", format: 'uri' }) url!: string;
  @ApiProperty({ enum: [true], description: 'Always true: send the browser to `url`' }) redirect!: boolean;
}

export class SessionUserResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'A verified address from a provider, or the one the operator gave' }) email!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) name!: string | null;
}

export class SessionDetailResponse {
  @ApiProperty({ format: 'date-time', description: '30 days after the last refresh (an active session is refreshed once a day), never later than SESSION_MAX_LIFETIME_DAYS after sign-in' }) expiresAt!: string;
}

export class SessionResponse {
  @ApiProperty({ type: SessionUserResponse }) user!: SessionUserResponse;
  @ApiProperty({ type: SessionDetailResponse }) session!: SessionDetailResponse;
}
