import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

export class PatchProfileRequest {
  @ApiProperty({
    example: 'America/New_York',
    maxLength: 64,
    description: 'An IANA time zone name (`Europe/Lisbon`, `UTC`; links such as `US/Eastern` are stored as their canonical zone). Anything else: 422 `invalid_string` at `["timeZone"]`.',
  })
  @IsString()
  @MaxLength(64)
  timeZone!: string;
}
