import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validate, type ValidationArguments, type ValidationError } from 'class-validator';
import { NotFoundError, type ValidationIssue, ValidationFailedError } from '../../core/errors.js';
import { ruleViolationIssue } from '../../core/rule-violation.js';
import { BodyTooDeepError, MAX_JSON_DEPTH } from './request-body-limits.js';
import { UploadedFile } from './request-body.reader.js';
import { isRuleName, isStorableText, UNSTORABLE_TEXT_MESSAGE } from './validators.js';

const CODE_OF_CONSTRAINT: Record<string, ValidationIssue['code']> = {
  whitelistValidation: 'unrecognized_keys',
  isDefined: 'invalid_type',
  isString: 'invalid_type',
  isNumber: 'invalid_type',
  isInt: 'invalid_type',
  isBoolean: 'invalid_type',
  isArray: 'invalid_type',
  isObject: 'invalid_type',
  nestedValidation: 'invalid_type',
  isIn: 'invalid_enum_value',
  isEnum: 'invalid_enum_value',
  minLength: 'too_small',
  min: 'too_small',
  isPositive: 'too_small',
  arrayMinSize: 'too_small',
  arrayNotEmpty: 'too_small',
  isNotEmpty: 'too_small',
  maxLength: 'too_big',
  max: 'too_big',
  arrayMaxSize: 'too_big',
  moneyMagnitude: 'too_big',
  isUuid: 'invalid_string',
  matches: 'invalid_string',
  isCalendarDate: 'invalid_string',
  isInstant: 'invalid_string',
  isCurrencyCode: 'invalid_string',
};

/** Enough for a client to fix its request; a body of 100,000 bad strings does not earn 100,000 issues. */
const MAX_ISSUES = 100;

/** Keys that would reach an object's prototype rather than a field of it: never a field of this API. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * class-validator on every body and query DTO, its errors reshaped into the API's
 * `{code, message, path}` issues. Before any DTO sees it, every string of the body, the query and
 * the path is checked for text PostgreSQL cannot store (NUL, lone surrogates), wherever it is nested.
 * Unknown body fields are refused (a misspelt field would silently lose an edit); unknown query
 * parameters are refused before any pipe runs (QueryKeysInterceptor).
 */
@Injectable()
export class DtoValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'custom') return value;
    if (metadata.type === 'param') {
      // A path segment that holds no storable text names nothing: 404, like an id that does not exist.
      if (typeof value === 'string' && !isStorableText(value)) throw new NotFoundError(resourceOfParam(metadata.data));
      return value;
    }
    // A file sent as the raw body (a statement) is bytes, read by its own parser: not text to scan here.
    if (metadata.type === 'body' && value instanceof UploadedFile) return value;
    const unstorable = unstorableTextIssues(value, metadata.type === 'body');
    if (unstorable.length > 0) throw new ValidationFailedError(unstorable);
    const type = metadata.metatype;
    if (!type || isPrimitive(type)) return value;
    if (metadata.type === 'body' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      throw new ValidationFailedError([{ code: 'invalid_type', message: 'The request body must be a JSON object.', path: [] }]);
    }
    const instance = plainToInstance(type, value ?? {}, { exposeDefaultValues: false }) as object;
    const errors = await validate(instance, {
      whitelist: true,
      forbidNonWhitelisted: metadata.type === 'body',
      // Every failing constraint is collected and issuesOf keeps the most telling one per field,
      // so the order decorators are written in does not decide which issue a client sees.
      stopAtFirstError: false,
      forbidUnknownValues: false,
    });
    if (errors.length > 0) throw new ValidationFailedError(errors.flatMap((error) => issuesOf(error, [])).slice(0, MAX_ISSUES));
    return instance;
  }
}

/**
 * Every string (and object key) that holds a NUL or a lone surrogate, with the path of its element.
 * Iterative and bounded by MAX_JSON_DEPTH, so no request can make it recurse.
 */
function unstorableTextIssues(root: unknown, isBody: boolean): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const stack: Array<{ node: unknown; path: Array<string | number> }> = [{ node: root, path: [] }];
  while (stack.length > 0 && issues.length < MAX_ISSUES) {
    const { node, path } = stack.pop()!;
    if (typeof node === 'string') {
      if (!isStorableText(node)) issues.push({ code: 'invalid_string', message: `${describe(path)} ${UNSTORABLE_TEXT_MESSAGE}`, path });
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    if (path.length >= MAX_JSON_DEPTH) throw new BodyTooDeepError();
    const entries: Array<[string | number, unknown]> = Array.isArray(node) ? node.map((item, index) => [index, item]) : Object.entries(node);
    for (const [key, child] of entries.reverse()) {
      if (typeof key === 'string' && !isStorableText(key)) {
        issues.push({ code: 'invalid_string', message: `The key of ${describe([...path, key])} ${UNSTORABLE_TEXT_MESSAGE}`, path: [...path, key] });
      } else if (isBody && typeof key === 'string' && PROTOTYPE_KEYS.has(key)) {
        issues.push({ code: 'unrecognized_keys', message: `Unrecognized key: "${key}"`, path: [...path, key] });
      } else {
        stack.push({ node: child, path: [...path, key] });
      }
    }
  }
  return issues;
}

const describe = (path: ReadonlyArray<string | number>) => (path.length === 0 ? 'The value' : path.join('.'));

function issuesOf(error: ValidationError, parentPath: Array<string | number>): ValidationIssue[] {
  const path = [...parentPath, /^\d+$/.test(error.property) ? Number(error.property) : error.property];
  const own = mostTelling(error.constraints ?? {}).flatMap(([constraint, message]) => {
    const elements = failingElements(error, constraint);
    if (elements.length > 0) return elements.map((index) => issueOf(constraint, message, [...path, index], error.property));
    return [issueOf(constraint, message, path, error.property)];
  });
  return [...own, ...(error.children ?? []).flatMap((child) => issuesOf(child, path))];
}

/** One issue per field: a wrong type says more than a length or range check that could not apply. */
function mostTelling(constraints: Record<string, string>): Array<[string, string]> {
  const entries = Object.entries(constraints);
  const rank = ([constraint]: [string, string]) => (constraint === 'whitelistValidation' ? 0 : CODE_OF_CONSTRAINT[constraint] === 'invalid_type' ? 1 : 2);
  const best = entries.reduce<[string, string] | undefined>((chosen, entry) => (chosen === undefined || rank(entry) < rank(chosen) ? entry : chosen), undefined);
  return best === undefined ? [] : [best];
}

function issueOf(constraint: string, message: string, path: Array<string | number>, property: string): ValidationIssue {
  if (isRuleName(constraint)) return ruleViolationIssue(path, constraint, message);
  return {
    code: CODE_OF_CONSTRAINT[constraint] ?? 'custom',
    message: constraint === 'whitelistValidation' ? `Unrecognized key: "${property}"` : message,
    path,
  };
}

/**
 * class-validator reports an `each: true` constraint against the whole array; the API's issue
 * points at the element (`["tagIds", 2]`), so the constraint is run again on each element to find it.
 */
function failingElements(error: ValidationError, constraint: string): number[] {
  if (!Array.isArray(error.value) || error.target === undefined) return [];
  const storage = getMetadataStorage();
  const metadatas = storage
    .getTargetValidationMetadatas(error.target.constructor, '', true, false)
    .filter((metadata) => metadata.propertyName === error.property && metadata.each);
  for (const metadata of metadatas) {
    for (const { name, instance } of storage.getTargetValidatorConstraints(metadata.constraintCls)) {
      if (name !== constraint) continue;
      const args: ValidationArguments = { targetName: error.target.constructor.name, property: error.property, object: error.target, value: error.value, constraints: metadata.constraints };
      const values = error.value as unknown[];
      return values.flatMap((element, index) => (instance.validate(element, args) === false ? [index] : []));
    }
  }
  return [];
}

function resourceOfParam(name: string | undefined): string {
  const words = (name ?? 'resource').replace(/Id$/, '').replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function isPrimitive(type: unknown): boolean {
  return type === String || type === Number || type === Boolean || type === Array || type === Object;
}
