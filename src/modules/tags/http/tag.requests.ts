import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import { TAG_COLORS, TAG_NAME_MAX_LENGTH, type TagColor, tagNameOf } from '../tag.js';

/** Names are trimmed (and NFC-normalised) before they are checked: "  Travel " is "Travel". */
const asTagName = ({ value }: { value: unknown }) => (typeof value === 'string' ? tagNameOf(value) : value);
const NAME_DESCRIPTION = `1 to ${TAG_NAME_MAX_LENGTH} characters once surrounding spaces are trimmed; unique among your tags, ignoring case (else 409 TAG_NAME_TAKEN).`;
const asLowerCase = ({ value }: { value: unknown }) => (Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? item.toLowerCase() : item)) : value);

export class CreateTagRequest {
  @ApiProperty({ minLength: 1, maxLength: TAG_NAME_MAX_LENGTH, example: 'Travel', description: NAME_DESCRIPTION })
  @Transform(asTagName) @IsString() @MinLength(1) @MaxLength(TAG_NAME_MAX_LENGTH)
  name!: string;

  @ApiProperty({ enum: TAG_COLORS, example: 'blue' })
  @IsIn(TAG_COLORS)
  color!: TagColor;
}

export class PatchTagRequest {
  @ApiPropertyOptional({ minLength: 1, maxLength: TAG_NAME_MAX_LENGTH, example: 'Trips', description: NAME_DESCRIPTION })
  @IsOptional() @Transform(asTagName) @IsString() @MinLength(1) @MaxLength(TAG_NAME_MAX_LENGTH)
  name?: string;

  @ApiPropertyOptional({ enum: TAG_COLORS })
  @IsOptional() @IsIn(TAG_COLORS)
  color?: TagColor;

  @ApiPropertyOptional({ description: 'true archives the tag (sets archivedAt; it can no longer be applied), false unarchives it.' })
  @IsOptional() @IsBoolean()
  archived?: boolean;
}

export class SetTransactionTagsRequest {
  @ApiProperty({ type: [String], format: 'uuid', maxItems: 100, description: 'The whole set: live, unarchived tags of yours (else 422 at the element).' })
  @Transform(asLowerCase) @IsUUID('all', { each: true }) @ArrayMaxSize(100) @IsArray()
  tagIds!: string[];
}

export class BulkApplyTagsRequest {
  @ApiProperty({ type: [String], format: 'uuid', minItems: 1, maxItems: 1000, description: 'Transactions of yours; any other id is skipped.' })
  @Transform(asLowerCase) @IsUUID('all', { each: true }) @ArrayMinSize(1) @ArrayMaxSize(1000) @IsArray()
  transactionIds!: string[];

  @ApiPropertyOptional({ type: [String], format: 'uuid', maxItems: 100, default: [], description: 'Tags to put on: live, unarchived tags of yours.' })
  @IsOptional() @Transform(asLowerCase) @IsUUID('all', { each: true }) @ArrayMaxSize(100) @IsArray()
  addTagIds?: string[];

  @ApiPropertyOptional({ type: [String], format: 'uuid', maxItems: 100, default: [], description: 'Tags to take off. At least one of the two sets must be non-empty.' })
  @IsOptional() @Transform(asLowerCase) @IsUUID('all', { each: true }) @ArrayMaxSize(100) @IsArray()
  removeTagIds?: string[];
}
