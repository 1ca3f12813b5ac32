import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiResponse, getSchemaPath } from '@nestjs/swagger';

class NestedErrorDetail {
  @ApiProperty({ example: 'UNAUTHORIZED' }) code!: string;
  @ApiProperty({ example: 'Invalid or expired token' }) message!: string;
}

/** General-format and authentication errors (401, 403, 429, 500, unknown routes). */
export class NestedErrorBody {
  @ApiProperty({ type: NestedErrorDetail }) error!: NestedErrorDetail;
}

/** Errors of the reference operations: a missing resource (404) or a refused domain rule (400, 409). */
export class FlatErrorBody {
  @ApiProperty({ example: 'NOT_FOUND' }) code!: string;
  @ApiProperty({ example: 'Transaction not found' }) error!: string;
}

/** A write that was stored but cannot be shown yet (503). */
export class WriteNotVisibleBody {
  @ApiProperty({ enum: ['READ_MODEL_LAGGING', 'READ_MODEL_FAILED'], example: 'READ_MODEL_LAGGING' }) code!: string;
  @ApiProperty({ example: 'Your change was saved, but the transactions read model has not caught up with it yet: read it again in a moment.' }) error!: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'The X-Request-Id of the write, to quote to an operator' }) requestId!: string | null;
}

class ValidationIssueBody {
  @ApiProperty({ enum: ['invalid_type', 'too_small', 'too_big', 'invalid_enum_value', 'invalid_string', 'unrecognized_keys', 'custom'] }) code!: string;
  @ApiProperty() message!: string;
  @ApiProperty({ type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'integer' }] }, example: ['tagIds', 2] }) path!: Array<string | number>;
}

class ValidationErrorDetail {
  @ApiProperty({ enum: ['ValidationError'] }) name!: string;
  @ApiProperty({ type: [ValidationIssueBody] }) issues!: ValidationIssueBody[];
}

export class ValidationErrorBody {
  @ApiProperty({ example: false }) success!: boolean;
  @ApiProperty({ type: ValidationErrorDetail }) error!: ValidationErrorDetail;
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'A rule of the domain refused the request, or the body is not valid JSON',
  401: 'No, invalid or expired credentials',
  403: 'The API key lacks the scope, or a cookie-authenticated write came from another site',
  404: 'No such resource for this user',
  409: 'Conflicting state',
  422: 'The body, query or path failed validation',
  503:
    'The write was stored, but a read model this response is built from has not caught up in time (READ_MODEL_LAGGING, with Retry-After: read again) ' +
    'or could not apply it (READ_MODEL_FAILED: an operator must act; quote requestId). The change is never lost.',
};

const BODY_OF: Record<number, new () => unknown> = {
  400: FlatErrorBody,
  401: NestedErrorBody,
  403: NestedErrorBody,
  404: FlatErrorBody,
  409: FlatErrorBody,
  422: ValidationErrorBody,
  503: WriteNotVisibleBody,
};

const RATE_LIMITED = ApiResponse({
  status: 429,
  description: "Over the user's rate limit (RATE_LIMITED)",
  headers: { 'Retry-After': { description: 'Seconds until the limit resets', schema: { type: 'integer', minimum: 1 } } },
  schema: { $ref: getSchemaPath(NestedErrorBody) },
});

/**
 * Documents the error statuses an operation can answer, each with its body shape; 500 always,
 * and 429 wherever credentials are needed (every authenticated request counts against the limit).
 */
export function ApiErrors(...statuses: Array<400 | 401 | 403 | 404 | 409 | 422 | 503>) {
  return applyDecorators(
    ApiExtraModels(NestedErrorBody, FlatErrorBody, ValidationErrorBody, WriteNotVisibleBody),
    ...statuses.map((status) => ApiResponse({ status, description: DESCRIPTIONS[status], schema: { $ref: getSchemaPath(BODY_OF[status]) } })),
    ...(statuses.includes(401) ? [RATE_LIMITED] : []),
    ApiResponse({ status: 500, description: 'Unexpected error (logged with the request id)', schema: { $ref: getSchemaPath(NestedErrorBody) } }),
  );
}
