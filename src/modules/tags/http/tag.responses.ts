import { ApiProperty } from '@nestjs/swagger';
import { TAG_COLORS, TAG_NAME_MAX_LENGTH } from '../tag.js';

export class TagResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ minLength: 1, maxLength: TAG_NAME_MAX_LENGTH, example: 'Travel' }) name!: string;
  @ApiProperty({ enum: TAG_COLORS, example: 'blue' }) color!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When the tag was archived; null when it is not.' }) archivedAt!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class TagWithUsageResponse extends TagResponse {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Live transactions carrying the tag (not deleted, account not deleted).' }) usageCount!: number;
}

export class TagListResponse {
  @ApiProperty({ type: [TagWithUsageResponse] }) tags!: TagWithUsageResponse[];
}

export class BulkApplyTagsResponse {
  @ApiProperty({ example: true }) success!: boolean;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Transactions whose set of tags changed.' }) updatedCount!: number;
}
