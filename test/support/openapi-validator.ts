import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export interface OpenApiOperation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, unknown> };
}

const NDJSON = 'application/x-ndjson';

/** Checks real responses against the served OpenAPI 3.1 document (JSON Schema 2020-12). */
export class OpenApiValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly templates: Array<{ template: string; pattern: RegExp }>;

  constructor(readonly document: OpenApiDocument) {
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema(document as object, 'openapi');
    this.templates = Object.keys(document.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
  }

  /** Returns the problems, or [] when the response is documented and matches its schema. */
  check(method: string, url: string, status: number, contentType: string | undefined, body: unknown): string[] {
    const path = new URL(url, 'http://localhost').pathname;
    const match = this.templates.find(({ pattern }) => pattern.test(path));
    if (!match) return [`${method} ${path}: no such path in the document`];
    const operation = this.document.paths[match.template][method.toLowerCase()];
    if (!operation) return [`${method} ${match.template}: no such operation in the document`];
    const response = operation.responses[String(status)];
    if (!response) return [`${method} ${match.template}: status ${status} is not documented`];
    if (!response.content) return body === undefined || body === '' || (typeof body === 'object' && body !== null && Object.keys(body).length === 0) ? [] : [`${method} ${match.template} ${status}: body sent but none documented`];
    // A stream of JSON lines (the export) documents the schema of each line.
    const lines = contentType?.startsWith(NDJSON) && response.content[NDJSON];
    if (!lines && !contentType?.startsWith('application/json')) return [`${method} ${match.template} ${status}: content type ${contentType}`];
    const pointer = ['paths', match.template, method.toLowerCase(), 'responses', String(status), 'content', lines ? NDJSON : 'application/json', 'schema']
      .map((part) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1')))
      .join('/');
    const validate = this.ajv.getSchema(`openapi#/${pointer}`);
    if (!validate) return [`${method} ${match.template} ${status}: schema not found`];
    if (lines) {
      const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : null;
      if (text === null) return [`${method} ${match.template} ${status}: the JSON lines were not read as text`];
      return text
        .split('\n')
        .filter((line) => line.length > 0)
        .flatMap((line, index) => {
          if (validate(JSON.parse(line))) return [];
          return (validate.errors ?? []).map((error) => `${method} ${match.template} ${status}: line ${index + 1} ${error.instancePath || '(line)'} ${error.message}`);
        });
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map((error) => `${method} ${match.template} ${status}: ${error.instancePath || '(body)'} ${error.message}`);
  }
}
