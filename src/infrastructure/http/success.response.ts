import { ApiProperty } from '@nestjs/swagger';

export class SuccessResponse {
  @ApiProperty() success!: boolean;
  @ApiProperty() message!: string;
}
