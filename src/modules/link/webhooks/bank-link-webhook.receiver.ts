import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../../core/clock.js';
import { foldOwnStream } from '../../../core/decider.js';
import type { GlobalPosition } from '../../../core/events.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import type { EventStore } from '../../../infrastructure/event-store/event-store.port.js';
import type { CommandContext } from '../../../infrastructure/event-store/handle-command.js';
import { jobTraceOf } from '../../../infrastructure/jobs/job-trace.js';
import type { JobRunner } from '../../../infrastructure/jobs/job.js';
import { CLOCK, DATABASE, EVENT_STORE, JOBS, LOGGER } from '../../../infrastructure/runtime/tokens.js';
import type { BankLinkWebhook, UnrecognisedWebhook, WebhookHeaders } from '../bank-link.port.js';
import { BANK_LINK, type BankLink } from '../bank-link.wiring.js';
import { ExecuteLinkItemCommand } from '../link-items/link-item.commands.js';
import { linkItemDecider } from '../link-items/link-item.decider.js';
import { linkItemStreamId } from '../link-items/link-item.js';
import { queueBankLinkSync } from '../sync/bank-link-sync.job.js';
import { effectOfWebhook } from './bank-link-webhook.effects.js';
import { unacceptableWebhook } from './bank-link-webhook.limits.js';

export type IgnoredWebhookReason = 'unrecognised' | 'unknown item' | 'disconnected item';

/** What became of a delivery. `rejected` (401) and `malformed` (400) are not a 200: the provider retries anything else. */
export type WebhookReceipt =
  | { readonly outcome: 'rejected' }
  /** Correctly signed, but holding what the service does not store (docs/decisions/0028): nothing done, nothing recorded. */
  | { readonly outcome: 'malformed'; readonly problem: string }
  /** `position`: the last event appended, null when the item already was in that state or a sync was queued. */
  | { readonly outcome: 'applied'; readonly position: GlobalPosition | null }
  | { readonly outcome: 'duplicate' }
  | { readonly outcome: 'ignored'; readonly reason: IgnoredWebhookReason };

/** Events a webhook caused name it: a webhook applied but not recorded (a crash in between) is still known. */
export const webhookCausationId = (webhookId: string) => `bank-link-webhook:${webhookId}`;

/**
 * Every bank-link webhook goes through here, from the provider's endpoint or the sandbox's
 * fire-webhook: verified over the raw body at the service's clock, deduplicated by its id, turned
 * into a command on the item (or a sync queued). The item is found by the provider's item id in
 * `link_item_credentials`, the authoritative table, not a read model. The effect comes first and
 * the id is recorded after it (docs/decisions/0013): a crash in between can repeat an effect,
 * never lose one, and a repeated one is recognised on the item's stream by its causation id.
 */
@Injectable()
export class BankLinkWebhookReceiver {
  constructor(
    private readonly commands: CommandBus,
    @Inject(BANK_LINK) private readonly bankLink: BankLink,
    @Inject(DATABASE) private readonly db: Kysely<Database>,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(JOBS) private readonly jobs: JobRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  async receive(rawBody: string, headers: WebhookHeaders, requestId: string): Promise<WebhookReceipt> {
    const provider = this.bankLink.provider;
    const now = this.clock.now();
    if (!provider || !(await provider.verifyWebhook(rawBody, headers, now))) {
      this.log.warn({ requestId, provider: this.bankLink.providerName }, 'bank-link webhook refused: signature missing, wrong or stale');
      return { outcome: 'rejected' };
    }
    const webhook = provider.parseWebhook(rawBody, headers);
    const problem = unacceptableWebhook(rawBody, webhook);
    if (problem !== null) {
      this.log.warn({ requestId, provider: this.bankLink.providerName, problem }, 'bank-link webhook refused: signed, but not what the service stores');
      return { outcome: 'malformed', problem };
    }
    // `webhookCode`, not `code`: a top-level `code` is redacted as an OAuth code would be, and this one is no secret.
    const about = { requestId, webhookId: webhook.webhookId, webhookCode: webhook.code === 'UNRECOGNISED' ? webhook.rawCode : webhook.code, linkItemId: webhook.itemId };
    if (webhook.webhookId !== null && (await this.alreadyReceived(webhook.webhookId))) {
      this.log.info(about, 'bank-link webhook already received: nothing done again');
      return { outcome: 'duplicate' };
    }
    const receipt = await this.apply(webhook, requestId, now);
    if (receipt.outcome === 'ignored') this.log.info({ ...about, reason: receipt.reason }, 'bank-link webhook ignored');
    else this.log.info({ ...about, outcome: receipt.outcome }, 'bank-link webhook received');
    if (webhook.webhookId !== null) await this.record(webhook, receipt, now);
    return receipt;
  }

  private async apply(webhook: BankLinkWebhook | UnrecognisedWebhook, requestId: string, now: Date): Promise<WebhookReceipt> {
    if (webhook.code === 'UNRECOGNISED') return { outcome: 'ignored', reason: 'unrecognised' };
    const owner = await this.db
      .selectFrom('link_item_credentials')
      .select(['user_id', 'link_item_uuid'])
      .where('provider', '=', this.bankLink.providerName)
      .where('link_item_id', '=', webhook.itemId)
      .executeTakeFirst();
    if (!owner) return { outcome: 'ignored', reason: 'unknown item' };
    const history = await this.store.readStream(linkItemStreamId(owner.link_item_uuid));
    if (history.length === 0 || history[0].metadata.userId !== owner.user_id) return { outcome: 'ignored', reason: 'unknown item' };
    const item = foldOwnStream(linkItemDecider, history, owner.user_id);
    if (item.status !== 'linked') return { outcome: 'ignored', reason: 'disconnected item' };
    const causationId = webhookCausationId(webhook.webhookId);
    if (history.some((recorded) => recorded.metadata.causationId === causationId)) return { outcome: 'duplicate' };

    const context: CommandContext = { userId: owner.user_id, actor: 'system', requestId, causationId, now };
    const effect = effectOfWebhook(webhook, owner.link_item_uuid);
    if (effect.type === 'QueueSync') {
      await queueBankLinkSync(this.jobs, context.userId, webhook.itemId, context.now, undefined, jobTraceOf(context));
      return { outcome: 'applied', position: null };
    }
    const outcome = await this.commands.execute(new ExecuteLinkItemCommand(owner.link_item_uuid, effect.command, context));
    return { outcome: 'applied', position: outcome.position };
  }

  private async alreadyReceived(webhookId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('bank_link_webhooks_received')
      .select('webhook_id')
      .where('provider', '=', this.bankLink.providerName)
      .where('webhook_id', '=', webhookId)
      .executeTakeFirst();
    return row !== undefined;
  }

  private async record(webhook: BankLinkWebhook | UnrecognisedWebhook, receipt: WebhookReceipt, now: Date): Promise<void> {
    await this.db
      .insertInto('bank_link_webhooks_received')
      .values({
        provider: this.bankLink.providerName,
        webhook_id: webhook.webhookId as string,
        code: webhook.code === 'UNRECOGNISED' ? webhook.rawCode : webhook.code,
        link_item_id: webhook.itemId,
        // Not in the table but found on the item's stream: an earlier delivery applied it and was not recorded.
        outcome: receipt.outcome === 'ignored' ? `ignored: ${receipt.reason}` : receipt.outcome === 'duplicate' ? 'applied' : receipt.outcome,
        received_at: now,
      })
      .onConflict((conflict) => conflict.columns(['provider', 'webhook_id']).doNothing())
      .execute();
  }
}
