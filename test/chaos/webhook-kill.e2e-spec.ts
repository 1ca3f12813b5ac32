import { sql } from 'kysely';
import { chaosUser, post, sleep } from '../support/chaos/chaos-fixture.js';
import { type ChaosStage, startChaosStage } from '../support/chaos/chaos-stage.js';
import { verifyLedgerlineSignature, WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The built service SIGKILLed while an endpoint holds one of its deliveries open, then started
 * again: every event still arrives, at least once, with the id it had; only the delivery that was
 * in flight may come twice, and the endpoint still sees the events in the order they happened.
 */
const EVENTS = 12;
const HELD = 4;

let stage: ChaosStage | null = null;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  // A 2 s timeout makes the claim lease 7 s: the restarted service sends the killed one's delivery again after that.
  stage = await startChaosStage({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_RETRY_BASE_MS: '200' } });
}, 120_000);

afterAll(async () => {
  await stage?.stop();
  await receiver.close();
}, 60_000);

describe('kill -9 mid-delivery', () => {
  it('loses no webhook, and repeats only the one in flight, with the same id', async () => {
    const { services: [service], view } = stage as ChaosStage;
    const user = await chaosUser(view.db, service.baseUrl, 0);
    const endpoint = await post(service.baseUrl, user.key, '/v1/webhooks/endpoints', { url: receiver.url('/kill'), eventTypes: ['transaction.created'] });
    let held: (() => void) | null = null;
    let heldArrived: () => void = () => undefined;
    const heldArrival = new Promise<void>((resolve) => (heldArrived = resolve));
    receiver.answer = () => {
      if (receiver.on('/kill').filter((first) => first.attempt === 1).length !== HELD || held !== null) return 200;
      heldArrived();
      // Never answered: the service is killed while it waits.
      return new Promise<number>((resolve) => (held = () => resolve(200)));
    };
    try {
      for (let i = 0; i < EVENTS; i += 1) await post(service.baseUrl, user.key, '/v1/transactions', { accountId: user.accountId, amount: -(i + 1), date: '2026-11-20', name: `Order ${i}` });
      await heldArrival;
      await service.kill9();
      await service.start();
      await receiver.until(() => new Set(receiver.on('/kill').map((webhook) => webhook.id)).size === EVENTS, 45_000);
      // Give a duplicate that should not exist time to show up.
      await sleep(500);
    } catch (error) {
      console.log(`service log (last lines):\n${service.logTail()}`);
      throw error;
    } finally {
      (held as (() => void) | null)?.();
    }

    const { rows: events } = await sql<{ id: string }>`
      SELECT event_id AS id FROM events WHERE type = 'TransactionCreated' AND metadata->>'userId' = (SELECT user_id::text FROM webhook_endpoints WHERE id = ${String(endpoint.id)})
      ORDER BY transaction_id, global_position`.execute(view.db);
    const got = receiver.on('/kill');
    const firstIds = [...new Set(got.map((webhook) => webhook.id))];
    expect(firstIds).toEqual(events.map((event) => event.id));
    const repeated = got.filter((webhook, index) => got.findIndex((other) => other.id === webhook.id) !== index);
    expect(repeated.filter((webhook) => webhook.id !== firstIds[HELD - 1])).toEqual([]);
    console.info(`kill -9 mid-delivery: ${EVENTS} events, ${got.length} deliveries received, ${repeated.length} repeated (the one in flight)`);
    for (const webhook of got) expect(verifyLedgerlineSignature(String(endpoint.secret), webhook.rawBody, webhook.headers['ledgerline-signature'] as string)).toBe(true);
    const { rows: log } = await sql<{ status: string; n: string }>`SELECT status, count(*) AS n FROM webhook_deliveries WHERE endpoint_id = ${String(endpoint.id)} GROUP BY status`.execute(view.db);
    expect(log.map((row) => [row.status, Number(row.n)])).toEqual([['succeeded', EVENTS]]);
  }, 90_000);
});
