import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';

export class PairTransferRequest {
  @ApiProperty({ format: 'uuid', example: '6f0c2b1e-3a4d-4e5f-8a9b-0c1d2e3f4a5b', description: "The other side: a transaction of yours in another account whose amount mirrors this one's (opposite sign, equal size)." })
  @IsUUID()
  transactionId!: string;
}
