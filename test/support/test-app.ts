import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import request from 'supertest';
import superagent from 'superagent';
import { loadConfig } from '../../src/config/config.js';
import type { Clock } from '../../src/core/clock.js';
import { createHttpApp } from '../../src/http-app.js';
import { createLogger } from '../../src/infrastructure/logging/logger.js';
import { type Runtime, startRuntime } from '../../src/infrastructure/runtime/runtime.js';
import type { Scope } from '../../src/modules/identity/api-key.js';
import { ensureUser, issueApiKey } from '../../src/modules/identity/identity.store.js';
import { serviceJobs } from '../../src/service-jobs.js';
import { serviceReactions } from '../../src/service-reactions.js';
import { serviceWorkers } from '../../src/service-workers.js';
import { OpenApiValidator } from './openapi-validator.js';
import { formatPosition } from '../../src/core/events.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import type { QuoteProvider } from '../../src/modules/quotes/quote.port.js';
import { replaceQuoteProvider } from '../../src/modules/quotes/quotes.wiring.js';

export interface TestApp {
  readonly app: INestApplication;
  readonly runtime: Runtime;
  readonly server: Server;
  readonly openApi: OpenApiValidator;
  /** A new user with a key; `as(key)` makes requests with it. */
  newUser(scopes?: Scope[]): Promise<{ userId: string; key: string }>;
  /** A new user with a key and a manual checking account ("Checking", balance 1000) made through the API. */
  newUserWithAccount(): Promise<{ userId: string; key: string; accountId: string }>;
  as(key: string): AuthorizedClient;
  /** Requests a browser would send with the session cookie, from an allowed origin unless told otherwise. */
  withSession(cookie: string, origin?: string | null): AuthorizedClient;
  /**
   * Every job queued in process has finished, and every read model has applied every event
   * committed so far (the store's committed head, not the feed's, which lags behind commits while
   * any older transaction on the server is still running).
   */
  settle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface AuthorizedClient {
  get(path: string): request.Test;
  post(path: string, body?: unknown): request.Test;
  patch(path: string, body?: unknown): request.Test;
  put(path: string, body?: unknown): request.Test;
  delete(path: string): request.Test;
}

export interface TestAppOptions {
  readonly clock?: Clock;
  readonly env?: Record<string, string>;
  /** Where the service's log lines go (at LOG_LEVEL, or info when given). */
  readonly logTo?: NodeJS.WritableStream;
  /** The job definitions (the service's own by default). */
  readonly jobs?: typeof serviceJobs;
  /** Replaces the configured quote provider (still behind the service's timeout and cache). */
  readonly quoteProvider?: QuoteProvider;
}

// JSON lines (GET /v1/export) are read as text, like text/*: `response.text`.
superagent.parse['application/x-ndjson'] = superagent.parse.text;

/** The real application on a fresh database: HTTP in, PostgreSQL out, nothing mocked. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database: TestDatabase = await createTestDatabase();
  // One test user sends far more requests a minute than a person: specs of the limit turn it on.
  const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', PORT: '0', RATE_LIMIT_PER_MINUTE: '0', ...options.env });
  const log = options.logTo ? createLogger(options.env?.LOG_LEVEL ? config.logLevel : 'info', options.logTo) : createLogger(config.logLevel);
  const runtime = await startRuntime(config, log, { clock: options.clock, jobs: options.jobs ?? serviceJobs, reactions: serviceReactions, workers: serviceWorkers });
  if (options.quoteProvider) replaceQuoteProvider(runtime, options.quoteProvider);
  const app = await createHttpApp(runtime);
  const server = app.getHttpServer() as Server;
  const openApi = new OpenApiValidator((await request(server).get('/v1/openapi.json').expect(200)).body);
  // Every response an end-to-end test receives must match the served OpenAPI document.
  const conforms = (method: string, path: string) => (response: request.Response) => {
    const lines = String(response.headers['content-type']).startsWith('application/x-ndjson');
    const problems = openApi.check(method, path, response.status, response.headers['content-type'], lines ? response.text : response.body);
    if (problems.length > 0) throw new Error(`Response does not match the OpenAPI document:\n${problems.join('\n')}\n${JSON.stringify(response.body).slice(0, 2000)}`);
  };
  const client = (headers: Record<string, string>): AuthorizedClient => {
    const send = (method: string, path: string, test: request.Test) => test.set(headers).expect(conforms(method, path));
    return {
      get: (path) => send('GET', path, request(server).get(path)),
      post: (path, body) => send('POST', path, request(server).post(path)).send(body as object),
      patch: (path, body) => send('PATCH', path, request(server).patch(path)).send(body as object),
      put: (path, body) => send('PUT', path, request(server).put(path)).send(body as object),
      delete: (path) => send('DELETE', path, request(server).delete(path)),
    };
  };
  let users = 0;
  const testApp: TestApp = {
    app,
    runtime,
    server,
    openApi,
    async newUser(scopes = ['read', 'write']) {
      users += 1;
      const { user } = await ensureUser(runtime.database.db, `user${users}-${Date.now()}@example.com`);
      const issued = await issueApiKey(runtime.database.db, user.id, 'test', scopes, new Date());
      return { userId: user.id, key: issued.key };
    },
    async newUserWithAccount() {
      const user = await testApp.newUser();
      const account = await testApp.as(user.key).post('/v1/accounts', { name: 'Checking', type: 'bank', subtype: 'checking', currentBalance: 1000 }).expect(201);
      return { ...user, accountId: account.body.id as string };
    },
    as(key: string): AuthorizedClient {
      return client({ Authorization: `Bearer ${key}` });
    },
    withSession(cookie: string, origin: string | null = config.publicUrl) {
      return client({ Cookie: cookie, ...(origin ? { Origin: origin } : {}) });
    },
    async settle(timeoutMs = 60_000) {
      // Every event so far through every read model and reaction, and every job they (or requests)
      // asked for finished — until nothing moves: a job's events may ask for more.
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const position = await runtime.eventStore.committedHeadPosition();
        if (!(await runtime.watch.waitFor(position, Math.max(0, deadline - Date.now())))) throw new Error(`The read models did not reach ${formatPosition(position)} within ${timeoutMs} ms`);
        if (await runtime.jobs.settled()) {
          const after = await runtime.eventStore.committedHeadPosition();
          if (formatPosition(after) === formatPosition(position)) return;
        }
        if (Date.now() > deadline) throw new Error(`jobs still running after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      await app.close();
      await runtime.close();
      await database.drop();
    },
  };
  return testApp;
}
