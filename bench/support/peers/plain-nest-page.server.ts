import 'reflect-metadata';
import { Controller, Get, Module, NotFoundException, Param } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { connectDatabase } from '../../../src/infrastructure/database/database.js';
import { readModelSearchPath } from '../../../src/infrastructure/projections/projection.js';
import { PROJECTIONS } from '../../../projections/index.js';
import type { RecordedStatement } from '../recorded-sql.js';

/**
 * The reference for GET /v1/transactions: a plain NestJS + pg handler. GET /pages/:name replays the
 * statements Ledgerline's list handler ran for that page (recorded by the bench, so the SQL is the
 * same), on a pool of the service's size and settings, and answers the first statement's rows (the
 * page, plus the one row that says more follow) cut to the page size, serialised by res.json.
 *
 * Environment: PORT, DATABASE_URL, POOL_SIZE, PAGE_SIZE, PAGES (JSON: name -> RecordedStatement[]).
 */
const pages = new Map(Object.entries(JSON.parse(process.env.PAGES ?? '{}') as Record<string, RecordedStatement[]>));
const pageSize = Number(process.env.PAGE_SIZE ?? 50);
const database = connectDatabase(String(process.env.DATABASE_URL), { max: Number(process.env.POOL_SIZE ?? 30), searchPath: readModelSearchPath(PROJECTIONS) });

@Controller()
class PageController {
  @Get('pages/:name')
  async page(@Param('name') name: string): Promise<{ transactions: unknown[]; hasMore: boolean }> {
    const statements = pages.get(name);
    if (!statements) throw new NotFoundException();
    let page: unknown[] = [];
    for (const [index, statement] of statements.entries()) {
      const result = await database.pool.query(statement.sql, statement.parameters as unknown[]);
      if (index === 0) page = result.rows;
    }
    return { transactions: page.slice(0, pageSize), hasMore: page.length > pageSize };
  }
}

@Module({ controllers: [PageController] })
class PageModule {}

const app = await NestFactory.create<NestExpressApplication>(PageModule, { logger: false });
// The service sends neither header; the reference should not do work the service does not.
app.disable('x-powered-by');
app.set('etag', false);
await app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => void app.close().then(() => database.close()).then(() => process.exit(0)));
