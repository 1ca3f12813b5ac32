import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { RULE_APPLICATION_STATUSES } from '../rule-applications.store.js';
import { RULE_ACTION_TYPES, RULE_BOUNDS, RULE_FIELDS, RULE_MATCHES, RULE_OPS } from '../rule.js';
import { CONDITION_VALUE_SCHEMA } from './rule.requests.js';

export class RuleConditionResponse {
  @ApiProperty({ enum: RULE_FIELDS }) field!: string;
  @ApiProperty({ enum: RULE_OPS }) op!: string;
  @ApiProperty(CONDITION_VALUE_SCHEMA) value!: unknown;
}

export class RuleActionResponse {
  @ApiProperty({ enum: RULE_ACTION_TYPES }) type!: string;
  @ApiPropertyOptional({ format: 'uuid' }) categoryId?: string;
  @ApiPropertyOptional({ type: [String], format: 'uuid' }) tagIds?: string[];
  @ApiPropertyOptional() merchantName?: string;
  @ApiPropertyOptional() notes?: string;
}

export class RuleResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ minLength: 1, maxLength: RULE_BOUNDS.name }) name!: string;
  @ApiProperty({ type: [RuleConditionResponse] }) conditions!: RuleConditionResponse[];
  @ApiProperty({ enum: RULE_MATCHES }) match!: string;
  @ApiProperty({ type: [RuleActionResponse] }) actions!: RuleActionResponse[];
  @ApiProperty({ type: 'integer' }) order!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class RuleListResponse {
  @ApiProperty({ type: [RuleResponse], description: 'In the order they run.' }) rules!: RuleResponse[];
}

export class RuleApplicationResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) ruleId!: string;
  @ApiProperty({ enum: RULE_APPLICATION_STATUSES }) status!: string;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Transactions the rule matched so far.' }) matched!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Transactions it changed (a matched one that already had its values, or whose fields are locked, is not changed).' }) changed!: number;
  @ApiProperty({ type: 'string', nullable: true, description: 'Why it failed (the rule was deleted); null otherwise.' }) error!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) completedAt!: string | null;
}
