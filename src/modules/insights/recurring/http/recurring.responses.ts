import { ApiProperty } from '@nestjs/swagger';
import { TransactionCategoryResponse } from '../../../transactions/http/transaction.responses.js';

export const RECURRING_FREQUENCIES = ['WEEKLY', 'BIWEEKLY', 'SEMI_MONTHLY', 'MONTHLY', 'ANNUALLY', 'UNKNOWN'] as const;
export const RECURRING_STATUSES = ['MATURE', 'EARLY_DETECTION', 'TOMBSTONED', 'UNKNOWN'] as const;

export class RecurringStreamResponse {
  @ApiProperty({ format: 'uuid', description: 'Stable across refreshes and restarts: derived from the account, the direction, the payee and the cadence family, not from amounts or dates.' })
  id!: string;
  @ApiProperty({ format: 'uuid' }) accountId!: string;
  @ApiProperty({ description: "The account's name now." }) accountName!: string;
  @ApiProperty() accountType!: string;
  @ApiProperty({ type: 'string', nullable: true }) accountSubtype!: string | null;
  @ApiProperty({ description: 'Mean amount of the stream\'s transactions, signed like them (negative for outflows).', example: -15.49 }) averageAmount!: number;
  @ApiProperty({ description: 'Amount of the latest transaction, signed.', example: -15.49 }) lastAmount!: number;
  @ApiProperty({ type: TransactionCategoryResponse, nullable: true, description: 'The category most of its transactions carry (the most recent on a tie), as it is named now.' })
  category!: TransactionCategoryResponse | null;
  @ApiProperty({ description: 'The name of the latest transaction.' }) description!: string;
  @ApiProperty({ format: 'date' }) firstDate!: string;
  @ApiProperty({ format: 'date' }) lastDate!: string;
  @ApiProperty({ enum: RECURRING_FREQUENCIES }) frequency!: string;
  @ApiProperty({ enum: RECURRING_STATUSES, description: '`MATURE` after three occurrences (two for annual), `EARLY_DETECTION` before. Listed streams are never `TOMBSTONED`.' })
  status!: string;
  @ApiProperty({ description: 'Always true here: the list holds active streams only.' }) isActive!: boolean;
  @ApiProperty({ type: 'string', nullable: true }) institutionLogo!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) institutionName!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) institutionUrl!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) merchantName!: string | null;
  @ApiProperty({ type: 'string', format: 'date', nullable: true, description: 'When the next payment is expected.' }) predictedNextDate!: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'The same identity as `id`.' }) streamId!: string | null;
  @ApiProperty({ enum: ['inflow', 'outflow'] }) streamType!: string;
  @ApiProperty({ type: [String], description: 'The transactions that make up the stream, oldest first.' }) transactionIds!: string[];
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When detection last recorded a change to the stream.' }) updatedAt!: string | null;
}

export class RecurringStreamsResponse {
  @ApiProperty({ type: [RecurringStreamResponse], description: 'Active streams, the next expected first.' }) streams!: RecurringStreamResponse[];
}
