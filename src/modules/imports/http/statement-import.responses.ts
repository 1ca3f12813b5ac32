import { ApiProperty } from '@nestjs/swagger';
import { STATEMENT_FORMATS } from '../statement.js';
import { IMPORT_STATUSES } from '../statement-imports.store.js';

export class FailedRowResponse {
  @ApiProperty({ description: 'CSV: the record’s number in the file, the header’s being 1 (a spreadsheet’s row). OFX: the transaction’s place in the file, from 1.' }) row!: number;
  @ApiProperty({ description: 'Why the row was not imported, with the line it ends on.' }) message!: string;
}

export class StatementImportResponse {
  @ApiProperty({ format: 'uuid', description: 'The import; a dry run’s id names nothing kept.' }) id!: string;
  @ApiProperty({ format: 'uuid' }) accountId!: string;
  @ApiProperty({ enum: ['queued', 'running', 'completed', 'failed'] satisfies typeof IMPORT_STATUSES }) status!: string;
  @ApiProperty({ enum: STATEMENT_FORMATS }) format!: string;
  @ApiProperty({ description: 'Rows in the file: transactions and failed rows alike.' }) totalRows!: number;
  @ApiProperty({ description: 'Transactions created so far.' }) imported!: number;
  @ApiProperty({ description: 'Rows whose transaction was already there (an earlier import of the same statement, or a FITID repeated in the file).' }) duplicates!: number;
  @ApiProperty({ description: 'Rows that could not be imported.' }) failed!: number;
  @ApiProperty({ type: [FailedRowResponse], description: 'The first 1,000 rows that could not be imported.' }) failedRows!: FailedRowResponse[];
  @ApiProperty({ type: 'string', nullable: true, description: 'Why a failed import stopped (its account was deleted meanwhile).' }) error!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) completedAt!: string | null;
}
