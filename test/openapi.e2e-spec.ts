import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import request from 'supertest';
import { servedRoutes } from './support/served-routes.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let document: { openapi: string; info: { version: string }; paths: Record<string, Record<string, { security?: unknown[] }>>; components: { securitySchemes: Record<string, unknown> } };

beforeAll(async () => {
  t = await startTestApp();
  document = (await request(t.server).get('/v1/openapi.json').expect(200)).body;
});
afterAll(() => t.close());

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1, version 0.1.0, served without credentials, with the bearerAuth and sessionCookie schemes', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('0.1.0');
    expect(document.components.securitySchemes.bearerAuth).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(document.components.securitySchemes.sessionCookie).toEqual(expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'pf_session' }));
  });

  it('passes redocly lint with neither errors nor warnings', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ledgerline-openapi-'));
    const file = path.join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    const lint = await promisify(execFile)(process.execPath, ['node_modules/@redocly/cli/bin/cli.js', 'lint', file, '--config', 'redocly.yaml', '--format', 'json'], {
      cwd: process.cwd(),
      maxBuffer: 10 * 1024 * 1024,
    }).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
    const report = JSON.parse(lint.stdout) as { totals: { errors: number; warnings: number }; problems: Array<{ message: string; location: unknown }> };
    expect(report.problems.map((problem) => problem.message)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it('describes every /v1 and /api/auth route the application serves: /v1 by API key or session but the provider’s webhook, sign-in public', () => {
    // Wildcards are Nest's not-found handlers for the paths outside the /v1 prefix, not operations.
    const documentedPrefix = (path: string) => ((path.startsWith('/v1/') && !path.startsWith('/v1/docs') && path !== '/v1/openapi.json') || path.startsWith('/api/auth/')) && !path.includes('*');
    const served = servedRoutes(t.app.getHttpAdapter().getInstance() as FastifyInstance)
      .filter((route) => documentedPrefix(route.slice(route.indexOf(' ') + 1)))
      .map((route) => route.replace(/:(\w+)/g, '{$1}'));
    const documented = Object.entries(document.paths).flatMap(([route, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${route}`));
    expect(served.length).toBeGreaterThan(10);
    expect(documented.sort()).toEqual(served.sort());
    for (const [route, operations] of Object.entries(document.paths)) {
      if (!route.startsWith('/v1/') || route === '/v1/webhooks/bank-link' || route === '/v1/sandbox/brokerage/portal' || route === '/v1/brokerage/portal/return') continue;
      for (const operation of Object.values(operations)) expect(operation.security).toEqual([{ bearerAuth: [] }, { sessionCookie: [] }]);
    }
    // Sent by the bank-link provider: verified by its signature over the body, not by a user's credential.
    expect(document.paths['/v1/webhooks/bank-link'].post.security).toEqual([]);
    expect(document.paths['/v1/sandbox/brokerage/portal'].get.security).toEqual([]);
    // Opened by the browser a provider's portal sends back: the session token in the URL is the credential.
    expect(document.paths['/v1/brokerage/portal/return'].get.security).toEqual([]);
    expect(document.paths['/api/auth/sign-in/social'].post.security).toEqual([]);
    expect(document.paths['/api/auth/callback/{provider}'].get.security).toEqual([]);
    expect(document.paths['/api/auth/session'].get.security).toEqual([{ sessionCookie: [] }]);
    expect(document.paths['/api/auth/sign-out'].post.security).toEqual([{ sessionCookie: [] }, {}]);
  });

  it('answers every operation that needs credentials, called without any, with the documented 401', async () => {
    const sample = '00000000-0000-4000-8000-000000000000';
    const credentialsOptional = (security: unknown[] | undefined) => !security || security.length === 0 || security.some((requirement) => Object.keys(requirement as object).length === 0);
    for (const [route, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (credentialsOptional(operation.security)) continue;
        const url = route.replace(/\{\w+\}/g, sample);
        const response = await request(t.server)[method as 'get'](url).send({});
        expect([method, route, response.status, response.body]).toEqual([method, route, 401, { error: { code: 'UNAUTHORIZED', message: 'Invalid or expired token' } }]);
        expect(t.openApi.check(method.toUpperCase(), url, response.status, response.headers['content-type'], response.body)).toEqual([]);
      }
    }
  });

  it('says which money fields are decimal strings (the brokerage overview and account list, as the spec types them) and which are numbers', () => {
    const schemas = (document as unknown as { components: { schemas: Record<string, { description?: string; properties: Record<string, { type?: unknown; description?: string }> }> } }).components.schemas;
    expect((document as unknown as { info: { description: string } }).info.description).toMatch(/brokerage\/overview.*decimal strings.*spec types them/);
    expect(schemas.BrokerageOverviewResponse!.description).toContain('decimal string');
    expect(schemas.BrokerageActivityResponse!.properties.amount!.description).toContain('spec types');
    expect(schemas.BrokerageAccountDetailsResponse!.properties.balance!.type).toEqual(['string', 'null']);
    expect(schemas.ActivityListItemResponse!.properties.amount).toMatchObject({ type: 'number', description: expect.stringContaining('JSON number') });
    expect(schemas.PortfolioSnapshotResponse!.properties.totalValue).toMatchObject({ type: 'number', description: expect.stringContaining('JSON number') });
  });

  it('serves a human-readable reference page beside the document', async () => {
    const page = await request(t.server).get('/v1/docs/').expect(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.text).toContain('swagger');
  });
});
