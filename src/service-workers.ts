import type { BackgroundWorker, Runtime } from './infrastructure/runtime/runtime.js';
import { WebhookSender } from './modules/webhooks/webhook-sender.js';

/** The service's background workers besides the daemon and the job relay: the webhook sender (decision 0039). */
export function serviceWorkers(runtime: Omit<Runtime, 'close'>): BackgroundWorker[] {
  return [new WebhookSender({ db: runtime.database.db, pool: runtime.database.pool, watch: runtime.watch, config: runtime.config, log: runtime.log })];
}
