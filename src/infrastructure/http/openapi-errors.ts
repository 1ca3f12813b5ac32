import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { FIRST_ACCEPTED_DATE, LAST_ACCEPTED_DATE } from '../../core/calendar-day.js';
import { MAX_BODY_TEXT, MAX_JSON_DEPTH } from './request-body-limits.js';

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

class ValidationRuleParams {
  @ApiProperty({ description: 'The stable name of the rule that refused the field.', example: 'CREDIT_LIMIT_NOT_ALLOWED' }) code!: string;
}

class ValidationIssueBody {
  @ApiProperty({ enum: ['invalid_type', 'too_small', 'too_big', 'invalid_enum_value', 'invalid_string', 'unrecognized_keys', 'custom'] }) code!: string;
  @ApiProperty({ description: 'For people; may change. Match on `code`, `path` and `params.code`.' }) message!: string;
  @ApiProperty({ type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'integer' }] }, example: ['tagIds', 2], description: 'JSON path of the offending element: a field name, or an index within an array.' })
  path!: Array<string | number>;
  @ApiPropertyOptional({ type: ValidationRuleParams, description: 'Present on `custom` issues raised by a named rule of the domain: `INVALID_SUBTYPE`, `CREDIT_LIMIT_NOT_ALLOWED`.' })
  params?: ValidationRuleParams;
}

class ValidationErrorDetail {
  @ApiProperty({ enum: ['ValidationError'] }) name!: string;
  @ApiProperty({ type: [ValidationIssueBody] }) issues!: ValidationIssueBody[];
}

export class ValidationErrorBody {
  @ApiProperty({ example: false }) success!: boolean;
  @ApiProperty({ type: ValidationErrorDetail }) error!: ValidationErrorDetail;
}

const VALIDATION_DESCRIPTION =
  'The body, query or path failed validation: one issue per offending element, its `path` pointing at it (`["tagIds", 2]`). ' +
  'A body field or a query parameter the operation does not take is an `unrecognized_keys` issue at its name (`?acountId=` is refused, never ignored). ' +
  'Strings must not hold NUL (U+0000) or a lone UTF-16 surrogate (`invalid_string`, anywhere in the body, query or path); ' +
  `dates are real days written YYYY-MM-DD from ${FIRST_ACCEPTED_DATE} to ${LAST_ACCEPTED_DATE}; ` +
  'money is a finite JSON number with at most 4 decimals (as JSON writes it) and a magnitude below 10^13. ' +
  'A rule of the domain that refuses a field answers a `custom` issue whose `params.code` names the rule ' +
  '(`INVALID_SUBTYPE`: the subtype is not in the vocabulary of its type; `CREDIT_LIMIT_NOT_ALLOWED`: a credit limit on an account that is not a credit card): ' +
  'match on `params.code`, not on the message.';

const DESCRIPTIONS: Record<number, string> = {
  400: `A rule of the domain refused the request (its \`code\`), or the body is not valid JSON or nests deeper than ${MAX_JSON_DEPTH} levels (BAD_REQUEST)`,
  401: 'No, invalid or expired credentials',
  403: 'The API key lacks the scope, or a cookie-authenticated write came from another site',
  404: 'No such resource for this user',
  409: 'Conflicting state',
  413: `The request body is larger than ${MAX_BODY_TEXT} (PAYLOAD_TOO_LARGE)`,
  415: 'The body is JSON in an encoding other than UTF-8, or compressed in an unsupported way (UNSUPPORTED_MEDIA_TYPE)',
  422: VALIDATION_DESCRIPTION,
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
  413: FlatErrorBody,
  415: FlatErrorBody,
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
export function ApiErrors(...statuses: Array<400 | 401 | 403 | 404 | 409 | 412 | 413 | 415 | 422 | 503>) {
  return applyDecorators(
    ApiExtraModels(NestedErrorBody, FlatErrorBody, ValidationErrorBody, WriteNotVisibleBody),
    ...statuses.map((status) => ApiResponse({ status, description: DESCRIPTIONS[status], schema: { $ref: getSchemaPath(BODY_OF[status]) } })),
    ...(statuses.includes(401) ? [RATE_LIMITED] : []),
    ApiResponse({ status: 500, description: 'Unexpected error (logged with the request id)', schema: { $ref: getSchemaPath(NestedErrorBody) } }),
  );
}

interface DocumentedOperation {
  parameters?: Array<{ in?: string }>;
  requestBody?: unknown;
  responses?: Record<string, unknown>;
}

/**
 * What the edge answers before any controller runs, added to every operation of the document so no
 * controller can forget it: an operation that takes a body can answer 400 (not JSON, too deep),
 * 413, 415 and 422; every operation 422 (a query parameter it does not take: QueryKeysInterceptor);
 * one with path parameters 404 (a path segment that cannot name anything); and every operation
 * 431. Statuses an operation already documents are left as they are.
 */
export function documentInputErrors<T extends { paths: object }>(document: T): T {
  const response = (status: number) => ({
    description: DESCRIPTIONS[status],
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${BODY_OF[status].name}` } } },
  });
  for (const pathItem of Object.values(document.paths) as Array<Record<string, DocumentedOperation>>) {
    for (const operation of Object.values(pathItem)) {
      if (!operation || typeof operation !== 'object' || !operation.responses) continue;
      const statuses = [
        ...(operation.requestBody ? [400, 413, 415] : []),
        422,
        ...((operation.parameters ?? []).some((parameter) => parameter.in === 'path') ? [404] : []),
      ];
      for (const status of statuses) operation.responses[String(status)] ??= response(status);
      // Node's HTTP parser answers a request line or headers over 16 KB itself, without a body.
      operation.responses['431'] ??= { description: 'The request line or headers exceed 16 KB (no body)' };
    }
  }
  return document;
}
