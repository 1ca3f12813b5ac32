import { ApiProperty } from '@nestjs/swagger';

export class ProfileResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: 'string', nullable: true, example: 'you@example.com' }) email!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) name!: string | null;
  @ApiProperty({
    example: 'Europe/Lisbon',
    description: 'IANA time zone in its canonical spelling (`UTC` until set). It decides which calendar day is "today" for the trailing windows of /spending; transaction dates are calendar days and never move with it.',
  })
  timeZone!: string;
}
