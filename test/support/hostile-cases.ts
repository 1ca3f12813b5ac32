import { randomUUID } from 'node:crypto';

/**
 * Hostile requests generated from the served OpenAPI document: for every operation, every body
 * field (nested objects and array elements included), query parameter and path parameter gets
 * boundary dates, NUL and lone surrogates, huge and tiny numbers, wrong types, deep nesting,
 * oversize strings, forged cursors, unknown fields and hostile ids, one change at a time on top of
 * a request that is otherwise valid.
 */

type Schema = Record<string, unknown>;

interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly schema?: Schema;
}

interface Operation {
  readonly operationId?: string;
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: { content?: Record<string, { schema?: Schema }> };
}

export interface ServedDocument {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components?: { schemas?: Record<string, Schema> };
}

export interface HostileCase {
  readonly operation: string;
  /** The document's path template, e.g. /v1/accounts/{accountId}. */
  readonly template: string;
  readonly label: string;
  readonly method: string;
  readonly target: string;
  readonly headers: Record<string, string>;
  readonly body?: string | Buffer;
}

export interface SweepFixtures {
  /** A real value for a path or body id of this user, by parameter or field name; undefined: none. */
  realId(name: string): string | undefined;
  /** Ids of the same kind that belong to another user. */
  foreignId(name: string): string | undefined;
}

export interface SweepPlan {
  readonly cases: HostileCase[];
  readonly skipped: Array<{ operation: string; reason: string }>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const JSON_TYPE = 'application/json';

/** Operations the sweep leaves out, with why: outside /v1, or a browser redirect flow. */
function skipReason(path: string): string | undefined {
  if (!path.startsWith('/v1/')) return 'outside /v1 (browser sign-in flow or operator probe)';
  return undefined;
}

export function planSweep(document: ServedDocument, fixtures: SweepFixtures): SweepPlan {
  const cases: HostileCase[] = [];
  const skipped: SweepPlan['skipped'] = [];
  for (const [template, pathItem] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (!operation) continue;
      const name = `${method.toUpperCase()} ${template}`;
      const reason = skipReason(template);
      if (reason) {
        skipped.push({ operation: name, reason });
        continue;
      }
      cases.push(...new OperationSweep(document, fixtures, name, method.toUpperCase(), template, operation).cases());
    }
  }
  return { cases, skipped };
}

class OperationSweep {
  private readonly pathParameters: Parameter[];
  private readonly queryParameters: Parameter[];
  private readonly headerParameters: Parameter[];
  private readonly bodySchema: Schema | undefined;
  private readonly out: HostileCase[] = [];

  constructor(
    private readonly document: ServedDocument,
    private readonly fixtures: SweepFixtures,
    private readonly name: string,
    private readonly method: string,
    private readonly template: string,
    operation: Operation,
  ) {
    this.pathParameters = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path');
    this.queryParameters = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
    this.headerParameters = (operation.parameters ?? []).filter((parameter) => parameter.in === 'header');
    const bodySchema = operation.requestBody?.content?.[JSON_TYPE]?.schema;
    this.bodySchema = bodySchema ? this.resolve(bodySchema) : undefined;
  }

  cases(): HostileCase[] {
    this.add('valid', {});
    this.headerCases();
    this.pathCases();
    this.queryCases();
    if (this.bodySchema) this.bodyCases(this.bodySchema);
    else this.bodylessCases();
    return this.out;
  }

  // ---- building requests -------------------------------------------------------------------

  private add(label: string, change: { path?: Record<string, string>; query?: string; body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> }): void {
    const target = this.template.replace(/\{([^}]+)\}/g, (_match, parameter: string) => change.path?.[parameter] ?? encodeURIComponent(this.pathValue(parameter)));
    const query = change.query ?? this.baselineQuery();
    const headers: Record<string, string> = {};
    let body: string | Buffer | undefined;
    if (change.rawBody !== undefined) body = change.rawBody;
    else if (this.bodySchema) body = JSON.stringify(change.body === undefined ? this.baselineBody() : change.body);
    if (body !== undefined) headers['Content-Type'] = 'application/json; charset=utf-8';
    Object.assign(headers, change.headers);
    this.out.push({ operation: this.name, template: this.template, label, method: this.method, target: query ? `${target}?${query}` : target, headers, body });
  }

  private pathValue(parameter: string): string {
    return this.fixtures.realId(parameter) ?? randomUUID();
  }

  private baselineQuery(): string {
    return this.queryParameters
      .filter((parameter) => parameter.required)
      .map((parameter) => `${encodeURIComponent(parameter.name)}=${encodeURIComponent(String(this.exampleOf(parameter.schema ?? {}, parameter.name)))}`)
      .join('&');
  }

  private baselineBody(): Record<string, unknown> {
    return this.exampleOf(this.bodySchema ?? {}, '') as Record<string, unknown>;
  }

  // ---- headers (the credentials stay valid) ----------------------------------------------------

  private headerCases(): void {
    const headers: Array<[string, Record<string, string>]> = [
      ['Accept text/html', { Accept: 'text/html' }],
      ['Accept application/xml only', { Accept: 'application/xml' }],
      ['a 300-character X-Request-Id', { 'X-Request-Id': 'r'.repeat(300) }],
      ['an X-Request-Id with spaces and quotes', { 'X-Request-Id': 'a "b" c' }],
      ['a Range header', { Range: 'bytes=0-1' }],
      ['an Origin of another site', { Origin: 'https://evil.example' }],
      ['a Cookie beside the key', { Cookie: 'pf_session=forged; other=1' }],
      ['Expect 100-continue', { Expect: '100-continue' }],
      ['X-HTTP-Method-Override DELETE', { 'X-HTTP-Method-Override': 'DELETE' }],
    ];
    for (const [label, extra] of headers) this.add(`header: ${label}`, { headers: extra });
    // The headers the operation documents (Idempotency-Key, If-Match): each gets hostile values too.
    for (const parameter of this.headerParameters) {
      const values: Array<[string, string]> = [
        ['empty', ''],
        ['one character', 'k'],
        ['256 characters', 'k'.repeat(256)],
        ['8 KB', 'k'.repeat(8192)],
        ['Latin-1 bytes', 'cl\u00e9'],
        ['a tab inside', 'a\tb'],
        ['quotes and commas', '"1", W/"2", *'],
        ['a star', '*'],
        ['a random UUID', randomUUID()],
      ];
      for (const [label, value] of values) this.add(`header ${parameter.name}: ${label}`, { headers: { [parameter.name]: value } });
    }
  }

  // ---- path ---------------------------------------------------------------------------------

  private pathCases(): void {
    for (const parameter of this.pathParameters) {
      for (const [label, value] of hostilePathSegments(this.fixtures.realId(parameter.name), this.fixtures.foreignId(parameter.name))) {
        this.add(`path ${parameter.name}: ${label}`, { path: { [parameter.name]: value } });
      }
    }
  }

  // ---- query --------------------------------------------------------------------------------

  private queryCases(): void {
    const base = this.baselineQuery();
    const withParameter = (text: string) => (base ? `${base}&${text}` : text);
    for (const parameter of this.queryParameters) {
      const key = encodeURIComponent(parameter.name);
      for (const [label, encoded] of hostileQueryValues(this.resolve(parameter.schema ?? {}), parameter.name)) {
        this.add(`query ${parameter.name}: ${label}`, { query: withParameter(`${key}=${encoded}`) });
      }
      this.add(`query ${parameter.name}: repeated`, { query: withParameter(`${key}=1&${key}=2&${key}=${encodeURIComponent(randomUUID())}`) });
      this.add(`query ${parameter.name}: bracketed`, { query: withParameter(`${key}[]=1&${key}[a]=2`) });
      this.add(`query ${parameter.name}: empty`, { query: withParameter(`${key}=`) });
      this.add(`query ${parameter.name}: bare`, { query: withParameter(key) });
    }
    for (const [label, encoded] of hostileQueryValues({ type: 'string' }, 'unknown')) {
      this.add(`query unknown parameter: ${label}`, { query: withParameter(`noSuchParameter=${encoded}`) });
    }
    this.add('query: NUL in a parameter name', { query: withParameter('%00=1') });
    this.add('query: 4,000 parameters', { query: withParameter(Array.from({ length: 4000 }, (_, index) => `p${index}=${index}`).join('&')) });
    this.add('query: malformed percent-encoding', { query: withParameter('x=%E0%A4%A&y=%') });
  }

  // ---- body ---------------------------------------------------------------------------------

  private bodyCases(schema: Schema): void {
    const baseline = this.baselineBody();
    for (const field of this.fieldsOf(schema, [])) {
      for (const [label, value] of hostileValues(field.schema, field.name)) {
        this.add(`body ${field.path.join('.')}: ${label}`, { body: setAt(baseline, field.path, value) });
      }
      if (field.path.length === 1 && !(field.path[0] in baseline)) {
        this.add(`body ${field.path.join('.')}: a valid value`, { body: setAt(baseline, field.path, this.exampleOf(field.schema, field.name)) });
      }
    }
    for (const [label, raw] of hostileWholeBodies(baseline)) this.add(`whole body: ${label}`, { rawBody: raw });
    for (const [label, headers, raw] of hostileContentTypes(baseline)) this.add(`content type: ${label}`, { rawBody: raw, headers });
  }

  /** An operation without a body: a body sent anyway must change nothing. */
  private bodylessCases(): void {
    for (const [label, raw] of hostileWholeBodies({})) this.add(`unexpected body: ${label}`, { rawBody: raw, headers: { 'Content-Type': JSON_TYPE } });
  }

  /** Every field reachable in the body: properties, nested object properties, array elements. */
  private fieldsOf(schema: Schema, path: Array<string | number>, depth = 0): Array<{ path: Array<string | number>; name: string; schema: Schema }> {
    const properties = (this.resolve(schema).properties ?? {}) as Record<string, Schema>;
    return Object.entries(properties).flatMap(([name, raw]) => {
      const fieldSchema = this.resolve(raw);
      const here = { path: [...path, name], name, schema: fieldSchema };
      const nested = [];
      if (depth < 3 && fieldSchema.properties) nested.push(...this.fieldsOf(fieldSchema, [...path, name], depth + 1));
      if (depth < 3 && typeOf(fieldSchema) === 'array' && fieldSchema.items) {
        const item = this.resolve(fieldSchema.items as Schema);
        // The element at index 2 after two valid ones: its issue must say ["field", 2].
        nested.push({ path: [...path, name, 2], name, schema: item });
      }
      return [here, ...nested];
    });
  }

  // ---- schemas ------------------------------------------------------------------------------

  /** Follows $ref and strips the `anyOf [X, null]` that nullable fields carry in OpenAPI 3.1. */
  private resolve(schema: Schema): Schema {
    let current = schema;
    for (let hops = 0; hops < 10; hops++) {
      if (typeof current.$ref === 'string') {
        const name = current.$ref.replace('#/components/schemas/', '');
        current = { ...(this.document.components?.schemas?.[name] ?? {}), ...withoutKey(current, '$ref') };
      } else if (Array.isArray(current.anyOf) || Array.isArray(current.oneOf) || Array.isArray(current.allOf)) {
        const options = (current.anyOf ?? current.oneOf ?? current.allOf) as Schema[];
        const chosen = options.find((option) => option.type !== 'null') ?? {};
        current = { ...chosen, ...withoutKey(withoutKey(withoutKey(current, 'anyOf'), 'oneOf'), 'allOf') };
      } else {
        return current;
      }
    }
    return current;
  }

  /** A valid value for a schema: its example, else one built from type, format and bounds. */
  private exampleOf(raw: Schema, name: string): unknown {
    const schema = this.resolve(raw);
    const real = schema.format === 'uuid' || /Id$/.test(name) ? this.fixtures.realId(name) : undefined;
    if (real !== undefined) return real;
    if (schema.example !== undefined) return schema.example;
    if (Array.isArray(schema.enum)) return schema.enum.find((value) => value !== null);
    switch (typeOf(schema)) {
      case 'object': {
        const required = (schema.required ?? []) as string[];
        const properties = (schema.properties ?? {}) as Record<string, Schema>;
        return Object.fromEntries(required.map((property) => [property, this.exampleOf(properties[property] ?? {}, property)]));
      }
      case 'array':
        return [];
      case 'number':
      case 'integer':
        return typeof schema.minimum === 'number' ? schema.minimum : 1;
      case 'boolean':
        return false;
      default:
        if (schema.format === 'date') return '2024-02-29';
        if (schema.format === 'uuid') return randomUUID();
        return 'x'.repeat(Math.max(1, Number(schema.minLength ?? 1)));
    }
  }
}

function isWellFormed(value: string): boolean {
  try {
    encodeURIComponent(value);
    return true;
  } catch {
    return false;
  }
}

function typeOf(schema: Schema): string | undefined {
  const type = schema.type;
  if (Array.isArray(type)) return type.find((entry) => entry !== 'null') as string | undefined;
  if (typeof type === 'string') return type;
  if (schema.properties) return 'object';
  return undefined;
}

function withoutKey(schema: Schema, key: string): Schema {
  const copy = { ...schema };
  delete copy[key];
  return copy;
}

function setAt(root: Record<string, unknown>, path: Array<string | number>, value: unknown): Record<string, unknown> {
  const copy = structuredClone(root);
  let node: Record<string | number, unknown> = copy;
  path.forEach((key, index) => {
    if (index === path.length - 1) {
      node[key] = value;
      return;
    }
    const nextKey = path[index + 1];
    if (typeof nextKey === 'number') {
      const existing = Array.isArray(node[key]) ? (node[key] as unknown[]) : [];
      while (existing.length < nextKey) existing.push(randomUUID());
      node[key] = existing;
    } else if (node[key] === null || typeof node[key] !== 'object') {
      node[key] = {};
    }
    node = node[key] as Record<string | number, unknown>;
  });
  return copy;
}

function nestedArrays(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

const nest = (depth: number): unknown => {
  let value: unknown = 1;
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
};

const LONE_SURROGATES: Array<[string, string]> = [
  ['a lone high surrogate', '\ud800'],
  ['a lone low surrogate', '\udfff'],
  ['a high surrogate at the end', 'Cafe \ud83d'],
  ['a low surrogate at the start', '\ude00 Cafe'],
  ['two high surrogates', '\ud83d\ud83d'],
];

const NULS: Array<[string, string]> = [
  ['NUL alone', '\u0000'],
  ['NUL inside', 'Corner\u0000Cafe'],
  ['NUL at the end', 'Cafe\u0000'],
  ['many NULs', '\u0000'.repeat(1000)],
];

const ODD_TEXT: Array<[string, string]> = [
  ['empty', ''],
  ['spaces', '   '],
  ['an emoji (a valid surrogate pair)', 'Cafe 😀'],
  ['right-to-left override', 'abc\u202edef'],
  ['control characters', '\u0001\u0007\u001b[31m'],
  ['SQL', "x'); DROP TABLE transactions; --"],
  ['a path', '../../etc/passwd'],
  ['percent-encoded NUL as text', '%00'],
  ['JSON-looking text', '{"$gt": ""}'],
  ['a BOM', '\ufeff'],
  ['1,000 characters', 'x'.repeat(1000)],
  ['10,001 characters', 'y'.repeat(10_001)],
  ['100,001 characters', 'z'.repeat(100_001)],
];

/** Timestamps (an as-of instant): in range, out of it, without an offset, far in the future. */
const INSTANTS: Array<[string, string]> = [
  ['instant 2026-01-01T00:00:00Z (valid)', '2026-01-01T00:00:00Z'],
  ['instant with an offset and 9 fraction digits (valid)', '2026-01-01T01:00:00.123456789+01:00'],
  ['instant at the epoch (valid)', '1970-01-01T00:00:00Z'],
  ['instant 1899-12-31T23:59:59Z', '1899-12-31T23:59:59Z'],
  ['instant 9999-12-31T23:59:59Z (the future)', '9999-12-31T23:59:59Z'],
  ['instant 2199-12-31T23:59:59.999-23:59 (the future)', '2199-12-31T23:59:59.999-23:59'],
  ['instant without an offset', '2026-01-01T00:00:00'],
  ['instant +275760-09-13T00:00:00.000Z', '+275760-09-13T00:00:00.000Z'],
  ['instant with offset +24:00', '2026-01-01T00:00:00+24:00'],
  ['instant 2026-02-29T00:00:00Z', '2026-02-29T00:00:00Z'],
  ['instant as epoch milliseconds', '1767225600000'],
];

const DATES: Array<[string, string]> = [
  ['date 0000-01-01', '0000-01-01'],
  ['date 1899-12-31', '1899-12-31'],
  ['date 1900-01-01 (first accepted)', '1900-01-01'],
  ['date 2199-12-31 (last accepted)', '2199-12-31'],
  ['date 2200-01-01', '2200-01-01'],
  ['date 2025-02-30', '2025-02-30'],
  ['date 2024-02-29 (valid)', '2024-02-29'],
  ['date 2023-02-29', '2023-02-29'],
  ['date 1900-02-29', '1900-02-29'],
  ['date 9999-12-31', '9999-12-31'],
  ['date 2025-13-01', '2025-13-01'],
  ['date 2025-00-10', '2025-00-10'],
  ['date 2025-1-1', '2025-1-1'],
  ['date with time', '2025-01-01T00:00:00Z'],
  ['date +275760-09-13', '+275760-09-13'],
  ['date -000001-01-01', '-000001-01-01'],
  ['date 20250101', '20250101'],
  ['date with NUL', '2025-01-01\u0000'],
  ['date infinity', 'infinity'],
  ['date epoch', 'epoch'],
];

const NUMBERS: Array<[string, unknown]> = [
  ['1e308', 1e308],
  ['-1e308', -1e308],
  ['1e15', 1e15],
  ['-1e15', -1e15],
  ['1e13', 1e13],
  // Written with more digits than a double holds: what a client's JSON text may carry.
  ['9999999999999.9999', Number('9999999999999.9999')],
  ['999999999999.9999', Number('999999999999.9999')],
  ['2^53', 2 ** 53],
  ['2^63', 2 ** 63],
  ['0.00001', 0.00001],
  ['1e-7', 1e-7],
  ['5e-324', 5e-324],
  ['0.1 + 0.2', 0.1 + 0.2],
  ['0.0001', 0.0001],
  ['123.4567', 123.4567],
  ['-0', -0],
  ['0', 0],
  ['-1', -1],
  ['1.5', 1.5],
  ['90.0001', 90.0001],
  ['-90.0001', -90.0001],
  ['180.5', 180.5],
  ['-181', -181],
  ['501', 501],
  ['"NaN" as a string', 'NaN'],
  ['"Infinity" as a string', 'Infinity'],
  ['"12" as a string', '12'],
  ['"1e3" as a string', '1e3'],
];

const WRONG_TYPES: Array<[string, unknown]> = [
  ['null', null],
  ['true', true],
  ['false', false],
  ['0', 0],
  ['an empty array', []],
  ['an array of one string', ['x']],
  ['an array of null', [null]],
  ['an empty object', {}],
  ['an object', { a: 1 }],
  ['an operator object', { $gt: '' }],
  ['a string', 'x'],
  ['arrays 20 deep', JSON.parse(nestedArrays(20))],
  ['objects 31 deep', nest(31)],
  ['objects 40 deep', nest(40)],
];

const HOSTILE_UUIDS: Array<[string, string]> = [
  ['not a UUID', 'not-a-uuid'],
  ['a nil UUID', '00000000-0000-0000-0000-000000000000'],
  ['an upper-case UUID', randomUUID().toUpperCase()],
  ['a UUID with braces', `{${randomUUID()}}`],
  ['a UUID without dashes', randomUUID().replace(/-/g, '')],
  ['a UUID and NUL', `${randomUUID()}\u0000`],
  ['a UUID and a lone surrogate', `${randomUUID()}\ud800`],
  ['a UUID with a newline', `${randomUUID()}\n`],
];

function hostileValues(schema: Schema, name: string): Array<[string, unknown]> {
  const type = typeOf(schema);
  const values: Array<[string, unknown]> = [...WRONG_TYPES, ...NULS, ...LONE_SURROGATES];
  if (schema.format === 'date') values.push(...DATES);
  else if (schema.format === 'uuid') values.push(...HOSTILE_UUIDS);
  else if (type === 'string' || type === undefined) values.push(...ODD_TEXT, DATES[0], HOSTILE_UUIDS[0]);
  if (type === 'string' || type === undefined) {
    if (Array.isArray(schema.enum)) {
      const first = String(schema.enum.find((value) => value !== null));
      values.push(['an enum value upper-cased', first.toUpperCase()], ['an enum value and NUL', `${first}\u0000`], ['an enum value padded', ` ${first} `]);
    }
    if (typeof schema.maxLength === 'number') values.push(['one character over maxLength', 'm'.repeat(schema.maxLength + 1)], ['maxLength characters', 'm'.repeat(schema.maxLength)]);
    values.push(['a number', 12]);
  }
  if (type === 'number' || type === 'integer') values.push(...NUMBERS, ['a huge string of digits', '9'.repeat(400)]);
  if (type === 'boolean') values.push(['"true" as a string', 'true'], ['1', 1]);
  if (type === 'array') {
    const many = (count: number, make: (index: number) => unknown) => Array.from({ length: count }, (_, index) => make(index));
    values.push(
      ['101 valid ids', many(101, () => randomUUID())],
      ['10,000 items', many(10_000, (index) => String(index))],
      ['duplicates', many(3, () => '00000000-0000-4000-8000-000000000001')],
      ['items of every type', [1, 'x', null, {}, [], true]],
      ['NUL in the third item', [randomUUID(), randomUUID(), '\u0000']],
    );
  }
  if (type === 'object') values.push(['an unknown field', { noSuchField: 1 }], ['a __proto__ field', JSON.parse('{"__proto__": {"polluted": true}}')], ['a NUL key', { '\u0000': 1 }]);
  void name;
  return values;
}

/** Query values, percent-encoded as they go on the wire. */
function hostileQueryValues(schema: Schema, name: string): Array<[string, string]> {
  // A lone surrogate has no UTF-8 form: send its CESU-8 bytes, as a careless client would.
  const text = (value: string) => (isWellFormed(value) ? encodeURIComponent(value) : `${encodeURIComponent(value.replace(/[\ud800-\udfff]/g, ''))}%ED%A0%80`);
  const values: Array<[string, string]> = [
    ['NUL', '%00'],
    ['NUL inside', 'a%00b'],
    ['a lone surrogate as UTF-8 bytes (CESU)', '%ED%A0%80'],
    ['an invalid UTF-8 byte', '%FF'],
    ['malformed percent-encoding', '%E0%A4%A'],
    ['a lone percent sign', '%'],
    ['empty', ''],
    ['spaces', '%20%20'],
    ['10,000 characters', 'q'.repeat(10_000)],
    ['SQL', text("x'); DROP TABLE transactions; --")],
    ['JSON', text('{"$gt":""}')],
    ...DATES.map(([label, value]): [string, string] => [label, text(value)]),
    ...HOSTILE_UUIDS.map(([label, value]): [string, string] => [label, text(value)]),
    ...NUMBERS.map(([label, value]): [string, string] => [label, text(String(value))]),
    ['limit 0', '0'],
    ['limit 501', '501'],
    ['hex', '0x10'],
    ['a huge number', '9'.repeat(400)],
    ['true', 'true'],
  ];
  if (Array.isArray(schema.enum)) values.push(['an enum value lower-cased', text(String(schema.enum[0]).toLowerCase())]);
  if (name === 'cursor') values.push(...forgedCursors());
  if (schema.format === 'date-time') values.push(...INSTANTS.map(([label, value]): [string, string] => [label, text(value)]));
  return values;
}

/** Cursors a client could forge: valid base64url JSON with hostile contents, and plain garbage. */
export function forgedCursors(): Array<[string, string]> {
  const forge = (contents: unknown) => Buffer.from(JSON.stringify(contents)).toString('base64url');
  const well = { v: 1, u: 'AAAAAAAAAAAAAAAA', d: '2026-01-01', c: '2026-01-01T00:00:00.000Z', i: randomUUID() };
  const cursors: Array<[string, unknown]> = [
    ['cursor of another owner', well],
    ['cursor with date 0000-01-01', { ...well, d: '0000-01-01' }],
    ['cursor with createdAt +275760', { ...well, c: '+275760-09-13T00:00:00Z' }],
    ['cursor with createdAt -271821', { ...well, c: '-271821-04-20T00:00:00Z' }],
    ['cursor with a huge string', { ...well, c: 'x'.repeat(700) }],
    ['cursor with nested objects', { ...well, d: { a: { b: { c: [] } } } }],
    ['cursor with NUL id', { ...well, i: '\u0000' }],
    ['cursor with version 2', { ...well, v: 2 }],
    ['cursor that is an array', [1, 2, 3]],
    ['cursor that is null', null],
  ];
  return [
    ...cursors.map(([label, contents]): [string, string] => [label, forge(contents)]),
    ['cursor that is not base64url', '!!!'],
    ['cursor of 2,000 characters', 'A'.repeat(2000)],
    ['cursor truncated', forge(well).slice(0, 20)],
  ];
}

function hostilePathSegments(real: string | undefined, foreign: string | undefined): Array<[string, string]> {
  const id = real ?? randomUUID();
  return [
    ['not a UUID', 'not-a-uuid'],
    ['a nil UUID', '00000000-0000-0000-0000-000000000000'],
    ['a random UUID', randomUUID()],
    ['the real id upper-cased', id.toUpperCase()],
    ...(foreign ? [['another user’s id', foreign] as [string, string]] : []),
    ['NUL', '%00'],
    ['the id and NUL', `${id}%00`],
    ['a lone surrogate as UTF-8 bytes (CESU)', '%ED%A0%80'],
    ['an invalid UTF-8 byte', '%FF'],
    ['malformed percent-encoding', '%E0%A4%A'],
    ['a lone percent sign', '%25'],
    ['dot dot, encoded', '%2e%2e'],
    ['an encoded slash', `${id}%2Fx`],
    ['SQL', encodeURIComponent("1' OR '1'='1")],
    ['2,000 characters', 'i'.repeat(2000)],
    ['the id with a trailing space', `${id}%20`],
  ];
}

function hostileWholeBodies(baseline: Record<string, unknown>): Array<[string, string | Buffer]> {
  const valid = JSON.stringify(baseline);
  return [
    ['malformed JSON', '{"name": '],
    ['single quotes', "{'name': 'x'}"],
    ['trailing comma', `${valid.slice(0, -1)},}`],
    ['NUL byte outside strings', `${valid}\u0000`],
    ['an array', '[]'],
    ['null', 'null'],
    ['a number', '1'],
    ['a string', '"x"'],
    ['true', 'true'],
    ['empty', ''],
    ['100,000 nested arrays', nestedArrays(100_000)],
    ['33 nested objects', JSON.stringify(nest(33))],
    ['an unknown field', JSON.stringify({ ...baseline, noSuchField: 1 })],
    ['a __proto__ field', `{"__proto__": {"polluted": true}${valid === '{}' ? '' : `, ${valid.slice(1, -1)}`}}`],
    ['a constructor field', JSON.stringify({ ...baseline, constructor: { prototype: { polluted: true } } })],
    ['duplicate keys', `{"a": 1, "a": 2${valid === '{}' ? '' : `, ${valid.slice(1, -1)}`}}`],
    ['a NUL key', JSON.stringify({ ...baseline, '\u0000': 1 })],
    ['a lone surrogate key', JSON.stringify({ ...baseline, '\ud800': 1 })],
    ['a byte-order mark', `\ufeff${valid}`],
    ['invalid UTF-8 bytes', Buffer.concat([Buffer.from('{"name": "'), Buffer.from([0xff, 0xfe, 0xc0]), Buffer.from('"}')])],
    ['2 MB', JSON.stringify({ ...baseline, padding: 'p'.repeat(2 * 1024 * 1024) })],
  ];
}

function hostileContentTypes(baseline: Record<string, unknown>): Array<[string, Record<string, string>, string | Buffer]> {
  const valid = JSON.stringify(baseline);
  return [
    ['text/plain', { 'Content-Type': 'text/plain' }, valid],
    ['form-encoded', { 'Content-Type': 'application/x-www-form-urlencoded' }, 'name=x&amount=1'],
    ['multipart', { 'Content-Type': 'multipart/form-data; boundary=x' }, '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--x--'],
    ['none', { 'Content-Type': '' }, valid],
    ['JSON in latin1', { 'Content-Type': 'application/json; charset=latin1' }, valid],
    ['JSON in UTF-16', { 'Content-Type': 'application/json; charset=utf-16' }, Buffer.from(valid, 'utf16le')],
    ['gzip that is not gzip', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, valid],
    ['an unknown encoding', { 'Content-Type': 'application/json', 'Content-Encoding': 'br2' }, valid],
    ['application/json-patch+json', { 'Content-Type': 'application/json-patch+json' }, valid],
    ['upper-case media type', { 'Content-Type': 'APPLICATION/JSON' }, valid],
  ];
}
