import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../src/infrastructure/database/embedded-postgres.js';

/**
 * The server a bench runs on: BENCH_DATABASE_URL when set, else a private PostgreSQL (the embedded
 * binaries) in a temporary directory. Private by default because the event feed's horizon is the
 * whole server's: a test's long transaction on a shared server stalls the projections and so every
 * read-your-writes PATCH, which measures the neighbours rather than the service.
 */
export async function benchPostgres(port: number): Promise<{ adminUrl: string; description: string; stop(): Promise<void> }> {
  if (process.env.BENCH_DATABASE_URL) return { adminUrl: process.env.BENCH_DATABASE_URL, description: 'the PostgreSQL at BENCH_DATABASE_URL', stop: async () => undefined };
  const dataDir = await mkdtemp(path.join(tmpdir(), 'ledgerline-bench-pg-'));
  const server = await startEmbeddedPostgres(dataDir, port, { info: () => undefined, warn: () => undefined });
  return {
    adminUrl: server.adminUrl,
    description: `a private PostgreSQL (embedded binaries) on port ${port}`,
    async stop() {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
