import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsIn, IsInt, IsObject, IsString, IsUUID, Max, MaxLength, Min, MinLength, ValidateIf, ValidateNested } from 'class-validator';
import { RULE_ACTION_TYPES, RULE_BOUNDS, RULE_FIELDS, RULE_MATCHES, RULE_OPS, type RuleAction, type RuleField, type RuleMatch, type RuleOp } from '../rule.js';

/** Optional, but never null: a field that cannot be cleared. */
const omittable = () => ValidateIf((_object, value) => value !== undefined);

export const CONDITION_VALUE_SCHEMA = {
  anyOf: [
    { type: 'string', minLength: 1, maxLength: RULE_BOUNDS.text },
    { type: 'number' },
    { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2 },
  ],
  description:
    'Text fields (`name`, `merchantName`): text of 1 to 200 characters, matched case-insensitively and literally with `contains`, `equals`, `startsWith`, `endsWith`. ' +
    '`amount`: a number (at most 4 decimals) with `equals`, `gt`, `lt`, or `[min, max]` with `between` (bounds included). Id fields (`accountId`, `categoryId`): a uuid of yours with `equals`.',
};

export class RuleConditionRequest {
  @ApiProperty({ enum: RULE_FIELDS }) @IsIn(RULE_FIELDS) field!: RuleField;
  @ApiProperty({ enum: RULE_OPS }) @IsIn(RULE_OPS) op!: RuleOp;
  @ApiProperty(CONDITION_VALUE_SCHEMA) @IsDefined() value!: string | number | [number, number];
}

export class RuleActionRequest {
  @ApiProperty({ enum: RULE_ACTION_TYPES, description: 'Each type takes its one property: setCategory `categoryId`, addTags `tagIds`, setMerchantName `merchantName`, setNotes `notes`.' })
  @IsIn(RULE_ACTION_TYPES)
  type!: RuleAction['type'];

  @ApiPropertyOptional({ format: 'uuid', description: 'setCategory: a category of yours.' })
  @omittable() @IsUUID()
  categoryId?: string;

  @ApiPropertyOptional({ type: [String], format: 'uuid', minItems: 1, maxItems: RULE_BOUNDS.tagIds, description: 'addTags: live, unarchived tags of yours.' })
  @omittable() @IsUUID('all', { each: true }) @ArrayMinSize(1) @ArrayMaxSize(RULE_BOUNDS.tagIds) @IsArray()
  tagIds?: string[];

  @ApiPropertyOptional({ minLength: 1, maxLength: RULE_BOUNDS.text, description: 'setMerchantName.' })
  @omittable() @IsString() @MinLength(1) @MaxLength(RULE_BOUNDS.text)
  merchantName?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: RULE_BOUNDS.text, description: 'setNotes.' })
  @omittable() @IsString() @MinLength(1) @MaxLength(RULE_BOUNDS.text)
  notes?: string;
}

const CONDITIONS_EXAMPLE = [{ field: 'merchantName', op: 'contains', value: 'starbucks' }];
const ACTIONS_EXAMPLE = [{ type: 'setNotes', notes: 'Coffee' }];

const ORDER_DESCRIPTION = 'Rules run in ascending order (equal orders: the older first). Omitted on creation: after your last rule.';

export class CreateRuleRequest {
  @ApiProperty({ minLength: 1, maxLength: RULE_BOUNDS.name, example: 'Coffee' })
  @IsString() @MinLength(1) @MaxLength(RULE_BOUNDS.name)
  name!: string;

  @ApiProperty({ type: [RuleConditionRequest], minItems: 1, maxItems: RULE_BOUNDS.conditions, example: CONDITIONS_EXAMPLE })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(RULE_BOUNDS.conditions) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => RuleConditionRequest)
  conditions!: RuleConditionRequest[];

  @ApiPropertyOptional({ enum: RULE_MATCHES, default: 'all', description: '`all`: every condition must hold; `any`: one is enough.' })
  @omittable() @IsIn(RULE_MATCHES)
  match?: RuleMatch;

  @ApiProperty({ type: [RuleActionRequest], minItems: 1, maxItems: RULE_BOUNDS.actions, example: ACTIONS_EXAMPLE })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(RULE_BOUNDS.actions) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => RuleActionRequest)
  actions!: RuleActionRequest[];

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 1_000_000, description: ORDER_DESCRIPTION })
  @omittable() @IsInt() @Min(0) @Max(1_000_000)
  order?: number;
}

export class PatchRuleRequest {
  @ApiPropertyOptional({ minLength: 1, maxLength: RULE_BOUNDS.name, example: 'Coffee' })
  @omittable() @IsString() @MinLength(1) @MaxLength(RULE_BOUNDS.name)
  name?: string;

  @ApiPropertyOptional({ type: [RuleConditionRequest], minItems: 1, maxItems: RULE_BOUNDS.conditions, example: CONDITIONS_EXAMPLE, description: 'The whole list.' })
  @omittable() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(RULE_BOUNDS.conditions) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => RuleConditionRequest)
  conditions?: RuleConditionRequest[];

  @ApiPropertyOptional({ enum: RULE_MATCHES })
  @omittable() @IsIn(RULE_MATCHES)
  match?: RuleMatch;

  @ApiPropertyOptional({ type: [RuleActionRequest], minItems: 1, maxItems: RULE_BOUNDS.actions, example: ACTIONS_EXAMPLE, description: 'The whole list.' })
  @omittable() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(RULE_BOUNDS.actions) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => RuleActionRequest)
  actions?: RuleActionRequest[];

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 1_000_000, description: ORDER_DESCRIPTION })
  @omittable() @IsInt() @Min(0) @Max(1_000_000)
  order?: number;
}
