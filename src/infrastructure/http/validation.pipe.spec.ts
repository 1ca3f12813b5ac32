import 'reflect-metadata';
import { IsArray, IsIn, IsString, IsUUID, MaxLength } from 'class-validator';
import { NotFoundError, ValidationFailedError } from '../../core/errors.js';
import { BodyTooDeepError } from './request-body-limits.js';
import { UploadedFile } from './request-body.reader.js';
import { DtoValidationPipe } from './validation.pipe.js';

class Tagged {
  @MaxLength(5) @IsString() name!: string;
  @IsUUID('all', { each: true }) @IsArray() tagIds!: string[];
  @IsIn(['read', 'write'], { each: true }) scopes!: string[];
}

const pipe = new DtoValidationPipe();
const asBody = (value: unknown) => pipe.transform(value, { type: 'body', metatype: Tagged });
const uuid = '7d1f0a4e-2222-4b3c-9d4e-000000000009';

async function issuesOf(promise: Promise<unknown>) {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ValidationFailedError);
  return (error as ValidationFailedError).issues;
}

describe('validation pipe', () => {
  it('points an each-element issue at the element', async () => {
    const issues = await issuesOf(asBody({ name: 'x', tagIds: [uuid, uuid, 'nope'], scopes: ['read', 'admin'] }));
    expect(issues.map((issue) => [issue.code, issue.path])).toEqual([
      ['invalid_string', ['tagIds', 2]],
      ['invalid_enum_value', ['scopes', 1]],
    ]);
  });

  it('reports a wrong type rather than a length check that could not apply', async () => {
    const issues = await issuesOf(asBody({ name: 12345678, tagIds: [], scopes: [] }));
    expect(issues).toEqual([{ code: 'invalid_type', message: expect.any(String), path: ['name'] }]);
  });

  it('refuses NUL and lone surrogates wherever they are nested, before the DTO runs', async () => {
    const issues = await issuesOf(asBody({ name: 'ok', tagIds: [], scopes: [], deep: { list: [{ text: 'a\u0000' }, '\ud800'] }, 'key\udc00': 1 }));
    expect(issues.map((issue) => [issue.code, issue.path])).toHaveLength(3);
    expect(issues.map((issue) => [issue.code, issue.path])).toEqual(
      expect.arrayContaining([
        ['invalid_string', ['deep', 'list', 0, 'text']],
        ['invalid_string', ['deep', 'list', 1]],
        ['invalid_string', ['key\udc00']],
      ]),
    );
    expect(await issuesOf(pipe.transform({ cursor: '\u0000' }, { type: 'query', metatype: Object }))).toEqual([expect.objectContaining({ path: ['cursor'] })]);
    await expect(asBody({ name: 'é😀', tagIds: [], scopes: [] })).resolves.toBeInstanceOf(Tagged);
  });

  it('passes a file sent as the raw body through as it came, never walking its bytes as fields', async () => {
    // Walked as an object, 10 MB of bytes made ten million path entries (3 GB for one 4.7 MB statement).
    const file = new UploadedFile('text/csv', undefined, Buffer.alloc(10 * 1024 * 1024, 0));
    expect(await pipe.transform(file, { type: 'body', metatype: Object })).toBe(file);
  });

  it('answers a path segment holding NUL with 404', async () => {
    await expect(pipe.transform('id\u0000', { type: 'param', metatype: String, data: 'linkItemId' })).rejects.toThrow(new NotFoundError('Link item'));
  });

  it('walks no deeper than the bound, iteratively', async () => {
    let deep: unknown = 'x';
    for (let level = 0; level < 100_000; level++) deep = [deep];
    await expect(asBody({ name: 'x', tagIds: [], scopes: [], deep })).rejects.toBeInstanceOf(BodyTooDeepError);
  });
});
