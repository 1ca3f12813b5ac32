import { ConfigError, loadConfig } from './config/config.js';
import { createHttpApp } from './http-app.js';
import { createLogger } from './infrastructure/logging/logger.js';
import { reportProcessFailures } from './infrastructure/logging/process-failures.js';
import { startRuntime } from './infrastructure/runtime/runtime.js';
import { serviceJobs } from './service-jobs.js';
import { serviceReactions } from './service-reactions.js';
import { serviceWorkers } from './service-workers.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Ledgerline cannot start: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const log = createLogger(config.logLevel);
  // Before anything starts that could fail in the background: nothing fails silently.
  reportProcessFailures(log);
  const runtime = await startRuntime(config, log, { jobs: serviceJobs, reactions: serviceReactions, workers: serviceWorkers });
  const app = await createHttpApp(runtime);
  await app.listen(config.port, config.host);
  log.info({ port: config.port, database: config.databaseUrl ? 'DATABASE_URL' : `embedded under ${config.dataDir}`, eventStore: config.eventStoreUrl ? 'EventStoreDB' : 'PostgreSQL', jobs: runtime.jobs.kind }, 'Ledgerline is listening');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests, then projections and jobs');
    const forced = setTimeout(() => {
      log.error('shutdown took longer than 15 s; exiting');
      process.exit(1);
    }, 15_000);
    forced.unref();
    await app.close();
    await runtime.close();
    log.info('stopped');
    process.exit(0);
  };
  // Nothing may exit at once on a signal, under requests still in flight; the embedded PostgreSQL,
  // if this process is the last one using it, is stopped last, in runtime.close() (decision 0030).
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.removeAllListeners(signal);
  process.on('SIGHUP', () => void stop('SIGHUP'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error('Ledgerline failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
