import { IDEMPOTENCY_KEY_PATTERN } from '../http/idempotency/idempotency-key.js';

/** Operations whose answer is one entity with a stream revision: they send its ETag. */
const TAGGED = new Set(['getTransaction', 'createTransaction', 'updateTransaction', 'setTransactionTags', 'pairTransfer', 'unpairTransfer', 'splitTransaction', 'getAccount', 'patchAccount', 'patchManualAccountBalance', 'createManualAccount']);
/** Writes that honour If-Match. */
const CONDITIONAL = new Set(['updateTransaction', 'deleteTransaction', 'setTransactionTags', 'pairTransfer', 'unpairTransfer', 'splitTransaction', 'patchAccount', 'patchManualAccountBalance', 'deleteAccount']);
const WRITES = new Set(['post', 'put', 'patch', 'delete']);

interface Operation {
  operationId?: string;
  parameters?: unknown[];
  responses?: Record<string, { description?: string; headers?: Record<string, unknown>; content?: Record<string, { schema?: unknown }> }>;
}

const FLAT_ERROR = { $ref: '#/components/schemas/FlatErrorBody' };

/**
 * Idempotency-Key on every write under /v1, ETag and If-Match where an entity has a revision
 * (api-decisions, "Safe retries and concurrency"): added here once, so no controller can forget them.
 */
export function documentSafeRetries<T extends { paths: object }>(document: T): T {
  for (const [path, pathItem] of Object.entries(document.paths) as Array<[string, Record<string, Operation>]>) {
    for (const [method, operation] of Object.entries(pathItem)) {
      if (!operation || typeof operation !== 'object' || !operation.responses) continue;
      if (path.startsWith('/v1/') && WRITES.has(method)) documentIdempotencyKey(operation);
      if (operation.operationId && TAGGED.has(operation.operationId)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          if (status.startsWith('2')) response.headers = { ...response.headers, ETag: { description: 'The entity tag: its stream revision, quoted ("7"); send it back in If-Match', schema: { type: 'string' } } };
        }
      }
      if (operation.operationId && CONDITIONAL.has(operation.operationId)) {
        operation.parameters = [
          ...(operation.parameters ?? []),
          { name: 'If-Match', in: 'header', required: false, description: 'Only if the entity still has this ETag (or `*`: exists); otherwise 412 and nothing changes.', schema: { type: 'string', maxLength: 1024 } },
        ];
        operation.responses['412'] = { description: 'If-Match names a version the entity no longer has (PRECONDITION_FAILED); nothing was changed', content: { 'application/json': { schema: FLAT_ERROR } } };
      }
    }
  }
  return document;
}

function documentIdempotencyKey(operation: Operation): void {
  const responses = operation.responses as NonNullable<Operation['responses']>;
  operation.parameters = [
    ...(operation.parameters ?? []),
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Makes the write safe to retry for 24 h: a repeat with the same key, method, path and body gets the first answer again (`Idempotent-Replayed: true`) and changes nothing.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN.source },
    },
  ];
  for (const [status, response] of Object.entries(responses)) {
    if (status.startsWith('2')) response.headers = { ...response.headers, 'Idempotent-Replayed': { description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } } };
  }
  const inProgress = 'IDEMPOTENCY_KEY_IN_PROGRESS: a request with this Idempotency-Key is still running; retry shortly';
  const conflict = responses['409'];
  responses['409'] = conflict ? { ...conflict, description: `${conflict.description ?? 'Conflicting state'}; or ${inProgress}` } : { description: inProgress, content: { 'application/json': { schema: FLAT_ERROR } } };
  const invalid = responses['422'];
  const invalidSchema = invalid?.content?.['application/json']?.schema;
  responses['422'] = {
    description: `${invalid?.description ?? ''} Also IDEMPOTENCY_KEY_REUSED (a flat error): this Idempotency-Key was used with another method, path or body.`.trim(),
    content: { 'application/json': { schema: invalidSchema ? { oneOf: [invalidSchema, FLAT_ERROR] } : FLAT_ERROR } },
  };
}
