import { existsSync } from 'node:fs';
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CREDENTIALS_FILE, DATABASE, type EmbeddedCredentials, keptCredentials, SERVICE_ROLE, SUPERUSER } from './embedded/embedded-credentials.js';
import { prepareServiceRole } from './embedded/embedded-roles.js';
import { initialiseCluster, isAlive, isListening, launchPostmaster, runningPostmaster, sleep, stopPostmaster } from './embedded/embedded-server.js';
import { EmbeddedUsers } from './embedded/embedded-users.js';

export interface EmbeddedLog {
  info(message: string): void;
  warn(message: string): void;
}

export interface EmbeddedDatabase {
  /** The service role, on the service's database. */
  readonly url: string;
  /** The superuser, on the `postgres` database (benches create scratch databases with it). */
  readonly adminUrl: string;
  /**
   * From now until `stop`, checks every second that the server runs and starts it again when it
   * does not; `onLost` once that has failed for `givingUpAfterMs`.
   */
  keepRunning(onLost: (error: Error) => void, givingUpAfterMs?: number): void;
  /** This process stops using the server; the last process to leave stops it (decision 0030). */
  stop(): Promise<void>;
}

/** Another program answers on the port: the server's passwords must never reach it. */
export class EmbeddedPortTakenError extends Error {}

/**
 * The embedded default: a real PostgreSQL under `<dataDir>/postgres`, started on first use and
 * shared by every process using that DATA_DIR (the service, the command line), each of which
 * records itself in `<dataDir>/postgres-users` (decision 0030).
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, log: EmbeddedLog, options: { readonly upgradePassword?: string | null } = {}): Promise<EmbeddedDatabase> {
  const databaseDir = path.join(dataDir, 'postgres');
  await mkdir(dataDir, { recursive: true });
  const credentials = await keptCredentials(dataDir);
  const users = new EmbeddedUsers(dataDir);
  await users.enter();
  try {
    await ensureServer(dataDir, port, credentials, log);
    await prepareServiceRole(port, credentials, (message) => log.info(message), options.upgradePassword ?? null);
  } catch (error) {
    await users.leave();
    throw error;
  }
  let keeper: NodeJS.Timeout | null = null;
  return {
    url: `postgres://${SERVICE_ROLE}:${credentials.servicePassword}@127.0.0.1:${port}/${DATABASE}`,
    adminUrl: `postgres://${SUPERUSER}:${credentials.superuserPassword}@127.0.0.1:${port}/postgres`,
    keepRunning(onLost, givingUpAfterMs = 30_000) {
      let failingSince: number | null = null;
      let checking = false;
      keeper = setInterval(() => {
        if (checking) return;
        checking = true;
        ensureServer(dataDir, port, credentials, log)
          .then(() => (failingSince = null))
          .catch((error: unknown) => {
            failingSince ??= Date.now();
            log.warn(`the embedded PostgreSQL cannot be started again: ${(error as Error).message}`);
            if (Date.now() - failingSince < givingUpAfterMs) return;
            if (keeper) clearInterval(keeper);
            onLost(error as Error);
          })
          .finally(() => (checking = false));
      }, 1000);
      keeper.unref();
    },
    async stop() {
      if (keeper) clearInterval(keeper);
      await users.leave();
      const others = await users.others();
      if (others.length > 0) {
        log.info(`the embedded PostgreSQL keeps running for the processes still using it (${others.join(', ')})`);
        return;
      }
      await stopPostmaster(databaseDir);
    },
  };
}

/**
 * Returns once the server of `<dataDir>/postgres` accepts connections on `port`, starting it if
 * none runs. Whatever else listens on the port is refused before anything is sent to it.
 */
async function ensureServer(dataDir: string, port: number, credentials: EmbeddedCredentials, log: EmbeddedLog): Promise<void> {
  const databaseDir = path.join(dataDir, 'postgres');
  const deadline = Date.now() + 120_000;
  for (;;) {
    const running = await runningPostmaster(databaseDir);
    if (running && running.port !== port) {
      throw new Error(`the embedded PostgreSQL of ${dataDir} runs on port ${running.port}, not on EMBEDDED_POSTGRES_PORT ${port}: stop it, or set the port it runs on`);
    }
    if (running?.status === 'ready') return;
    if (!running) {
      if (await isListening(port)) {
        throw new EmbeddedPortTakenError(
          `127.0.0.1:${port} (EMBEDDED_POSTGRES_PORT) is taken by a program that is not the PostgreSQL of ${databaseDir}; nothing was sent to it. Stop that program or choose another EMBEDDED_POSTGRES_PORT`,
        );
      }
      // initdb writes PG_VERSION long before it is done: while another process holds the lock, the cluster is not there yet.
      const initialised = existsSync(path.join(databaseDir, 'PG_VERSION')) && !existsSync(initdbLock(dataDir));
      if (!initialised && !(await initialiseAlone(dataDir, credentials, log))) {
        await sleep(100);
        continue;
      }
      try {
        await launchPostmaster(databaseDir, port, path.join(dataDir, 'postgres.log'));
        log.info(`the embedded PostgreSQL is running on 127.0.0.1:${port}`);
        return;
      } catch (error) {
        // Another process starting at the same moment won: its server is the one to use.
        if (!(error as Error).message.includes('lock file "postmaster.pid" already exists')) throw error;
      }
    }
    if (Date.now() > deadline) throw new Error(`the embedded PostgreSQL of ${dataDir} was still ${running?.status ?? 'starting'} after 120 s`);
    await sleep(100);
  }
}

const initdbLock = (dataDir: string) => path.join(dataDir, 'postgres.initdb-lock');

/** initdb by one process at a time (processes starting together on a new DATA_DIR); false: another one is at it. */
async function initialiseAlone(dataDir: string, credentials: EmbeddedCredentials, log: EmbeddedLog): Promise<boolean> {
  const lock = initdbLock(dataDir);
  try {
    await writeFile(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const holder = Number(await readFile(lock, 'utf8').catch(() => ''));
    // Empty: its holder is writing its pid this moment.
    if (Number.isInteger(holder) && holder > 0 && !isAlive(holder)) await unlink(lock).catch(() => undefined);
    return false;
  }
  try {
    if (existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))) return true;
    log.info(`creating the embedded PostgreSQL in ${path.join(dataDir, 'postgres')} (passwords in ${path.join(dataDir, CREDENTIALS_FILE)})`);
    await initialiseCluster(path.join(dataDir, 'postgres'), SUPERUSER, credentials.superuserPassword);
    return true;
  } finally {
    await unlink(lock);
  }
}
