import { type PrivateRedis, privateRedis } from '../../../src/infrastructure/jobs/private-redis.test-support.js';
import { type PrivatePostgres, privatePostgres } from './private-postgres.js';
import { openServiceDatabase, type ServiceDatabase } from './read-models.js';
import { type ServiceProcess, serviceProcess } from './service-process.js';
import type { WriteLoad } from './write-load.js';

/** What a chaos scenario runs on: a PostgreSQL of its own, optionally a Redis, the built service, and a view of its database. */
export interface ChaosStage {
  readonly postgres: PrivatePostgres;
  readonly redis: PrivateRedis | null;
  /** Started and healthy, in the order of `names`. */
  readonly services: readonly ServiceProcess[];
  readonly view: ServiceDatabase;
  /** The scenario's write load, stopped first when the stage is torn down. */
  load: WriteLoad | null;
  stop(): Promise<void>;
}

export interface ChaosStageOptions {
  /** One service process per name (default: one, "service"). */
  readonly names?: readonly string[];
  /** A private redis-server for BullMQ (otherwise jobs run in process). */
  readonly redis?: boolean;
  /** Extra environment for every service process. */
  readonly env?: Record<string, string>;
}

export async function startChaosStage(options: ChaosStageOptions = {}): Promise<ChaosStage> {
  const started: Array<() => Promise<void>> = [];
  const stopStarted = async () => {
    for (const stop of started.reverse()) await stop().catch(() => undefined);
  };
  try {
    const postgres = await privatePostgres();
    started.push(() => postgres.destroy());
    await postgres.start();
    let redis: PrivateRedis | null = null;
    if (options.redis) {
      const server = await privateRedis();
      redis = server;
      started.push(() => server.stop());
      await server.start();
    }
    const services: ServiceProcess[] = [];
    for (const name of options.names ?? ['service']) {
      const service = await serviceProcess(name, { databaseUrl: postgres.url, ...(redis ? { redisUrl: redis.url } : {}), ...(options.env ? { env: options.env } : {}) });
      started.push(() => service.stop());
      services.push(service);
      await service.start();
    }
    const view = openServiceDatabase(postgres.url);
    started.push(() => view.close());
    const stage: ChaosStage = {
      postgres,
      redis,
      services,
      view,
      load: null,
      async stop() {
        await stage.load?.stop();
        await stopStarted();
      },
    };
    return stage;
  } catch (error) {
    await stopStarted();
    throw error;
  }
}
