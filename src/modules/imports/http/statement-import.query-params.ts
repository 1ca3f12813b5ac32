import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { DATE_FORMATS, type DateFormat } from '../csv-statement.js';

const column = (what: string) => ({ minLength: 1, maxLength: 200, description: `CSV only: the header of the ${what} column (case-insensitive); found from the header when omitted.` });

/** `POST /accounts/{accountId}/imports`: a dry run, and the CSV overrides of what the header says. */
export class ImportStatementQuery {
  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'true: read the file and answer 200 with the counts an import would make; nothing is written.' })
  @IsOptional()
  @IsIn(['true', 'false'])
  dryRun?: 'true' | 'false';

  @ApiPropertyOptional(column('date')) @IsOptional() @IsString() @MinLength(1) @MaxLength(200) dateColumn?: string;
  @ApiPropertyOptional(column('amount')) @IsOptional() @IsString() @MinLength(1) @MaxLength(200) amountColumn?: string;
  @ApiPropertyOptional(column('debit (money out)')) @IsOptional() @IsString() @MinLength(1) @MaxLength(200) debitColumn?: string;
  @ApiPropertyOptional(column('credit (money in)')) @IsOptional() @IsString() @MinLength(1) @MaxLength(200) creditColumn?: string;
  @ApiPropertyOptional(column('name')) @IsOptional() @IsString() @MinLength(1) @MaxLength(200) nameColumn?: string;
  @ApiPropertyOptional(column('notes')) @IsOptional() @IsString() @MinLength(1) @MaxLength(200) notesColumn?: string;

  @ApiPropertyOptional({ enum: DATE_FORMATS, description: 'CSV only: how slashed dates are written. Omitted: MM/DD/YYYY, or DD/MM/YYYY in a file with decimal commas; YYYY-MM-DD dates are read as such either way.' })
  @IsOptional()
  @IsIn(DATE_FORMATS)
  dateFormat?: DateFormat;

  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'CSV only: true when amounts are written 1.234,56. Omitted: true for a `;`-separated file, false otherwise.' })
  @IsOptional()
  @IsIn(['true', 'false'])
  decimalComma?: 'true' | 'false';
}
