import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import { type ValidationIssue, ValidationFailedError } from '../../core/errors.js';

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
  isUuid: 'invalid_string',
  matches: 'invalid_string',
  isCalendarDate: 'invalid_string',
  isCurrencyCode: 'invalid_string',
};

/**
 * class-validator on every body and query DTO, its errors reshaped into the API's
 * `{code, message, path}` issues. Unknown body fields are refused (a misspelt field would
 * silently lose an edit); unknown query parameters are ignored.
 */
@Injectable()
export class DtoValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const type = metadata.metatype;
    if (!type || metadata.type === 'custom' || metadata.type === 'param' || isPrimitive(type)) return value;
    if (metadata.type === 'body' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      throw new ValidationFailedError([{ code: 'invalid_type', message: 'The request body must be a JSON object.', path: [] }]);
    }
    const instance = plainToInstance(type, value ?? {}, { exposeDefaultValues: false }) as object;
    const errors = await validate(instance, {
      whitelist: true,
      forbidNonWhitelisted: metadata.type === 'body',
      stopAtFirstError: true,
      forbidUnknownValues: false,
    });
    if (errors.length > 0) throw new ValidationFailedError(errors.flatMap((error) => issuesOf(error, [])));
    return instance;
  }
}

function issuesOf(error: ValidationError, parentPath: Array<string | number>): ValidationIssue[] {
  const path = [...parentPath, /^\d+$/.test(error.property) ? Number(error.property) : error.property];
  const own = Object.entries(error.constraints ?? {}).map(([constraint, message]) => ({
    code: CODE_OF_CONSTRAINT[constraint] ?? 'custom',
    message: constraint === 'whitelistValidation' ? `Unrecognized key: "${error.property}"` : message,
    path,
  }));
  return [...own, ...(error.children ?? []).flatMap((child) => issuesOf(child, path))];
}

function isPrimitive(type: unknown): boolean {
  return type === String || type === Number || type === Boolean || type === Array || type === Object;
}
