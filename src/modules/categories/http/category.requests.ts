import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsString, IsUUID, Matches, Max, MaxLength, Min, MinLength, ValidateIf } from 'class-validator';

const ICON_KEY = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const NOT_BLANK = /\S/;
export const MAX_CATEGORY_ORDER = 100_000;

/** Optional on an edit, but never null: there is no original value for a category to restore. */
const present = () => ValidateIf((_object, value) => value !== undefined);

export class CreateCategoryRequest {
  @ApiProperty({ format: 'uuid', description: 'A category group of yours (from GET /categories).', example: '00000000-0000-4000-8000-000000000000' })
  @IsUUID()
  groupId!: string;

  @ApiProperty({ minLength: 1, maxLength: 50, pattern: ICON_KEY.source, example: 'shopping-cart', description: 'Lower-case kebab-case icon name.' })
  @IsString() @MaxLength(50) @Matches(ICON_KEY, { message: 'iconKey must be lower-case kebab-case, like shopping-cart' })
  iconKey!: string;

  @ApiProperty({ minLength: 1, maxLength: 50, example: 'Board games', description: 'Unique within its group, ignoring case and surrounding space (else 409 CATEGORY_NAME_TAKEN).' })
  @IsString() @MinLength(1) @MaxLength(50) @Matches(NOT_BLANK, { message: 'name must not be blank' })
  name!: string;
}

export class PatchCategoryRequest {
  @ApiPropertyOptional({ minLength: 1, maxLength: 50, example: 'Board games', description: 'Unique within its group, ignoring case and surrounding space (else 409 CATEGORY_NAME_TAKEN).' })
  @present() @IsString() @MinLength(1) @MaxLength(50) @Matches(NOT_BLANK, { message: 'name must not be blank' })
  name?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 50, pattern: ICON_KEY.source, example: 'shopping-cart' })
  @present() @IsString() @MaxLength(50) @Matches(ICON_KEY, { message: 'iconKey must be lower-case kebab-case, like shopping-cart' })
  iconKey?: string;

  @ApiPropertyOptional({ description: 'Hidden from pickers; still shown on the transactions that carry it, and still assignable.' })
  @present() @IsBoolean()
  hidden?: boolean;

  @ApiPropertyOptional()
  @present() @IsBoolean()
  excludeFromInsights?: boolean;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_CATEGORY_ORDER, description: 'Place within its group.' })
  @present() @IsInt() @Min(0) @Max(MAX_CATEGORY_ORDER)
  order?: number;

  @ApiPropertyOptional({
    format: 'uuid',
    example: '00000000-0000-4000-8000-000000000000',
    description: 'Moves the category to this group of yours (else 400 CATEGORY_GROUP_NOT_FOUND); without `order` it goes to the end of the group.',
  })
  @present() @IsUUID()
  groupId?: string;
}

export class CreateCategoryGroupRequest {
  @ApiProperty({ minLength: 1, maxLength: 50, example: 'Hobbies', description: 'Unique among your groups, ignoring case and surrounding space (else 409 CATEGORY_GROUP_NAME_TAKEN).' })
  @IsString() @MinLength(1) @MaxLength(50) @Matches(NOT_BLANK, { message: 'name must not be blank' })
  name!: string;
}
