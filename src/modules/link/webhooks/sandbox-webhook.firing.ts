import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { accountsProjection } from '../../../../projections/accounts/accounts.projection.js';
import { linkItemsProjection } from '../../../../projections/link-items/link-items.projection.js';
import { NotFoundError } from '../../../core/errors.js';
import type { ReadYourWrites } from '../../../infrastructure/runtime/read-your-writes.js';
import { READ_YOUR_WRITES } from '../../../infrastructure/runtime/tokens.js';
import { BankLinkError, type BankLinkWebhookCode } from '../bank-link.port.js';
import { BANK_LINK, type BankLink } from '../bank-link.wiring.js';
import { GetLinkItem } from '../link-items/link-item.queries.js';
import { BankLinkWebhookReceiver } from './bank-link-webhook.receiver.js';

/** What a webhook's state shows in: the item, its alerts, and its accounts. */
const WEBHOOK_READ_MODELS = [linkItemsProjection.name, accountsProjection.name];

/**
 * The sandbox's "fire a webhook" control: the sandbox signs the webhook and changes its own item
 * status, and the signed delivery goes through the receiver exactly as the provider's POST would
 * (verification, dedupe, mapping), in process. Done once the state it changed is readable.
 */
@Injectable()
export class SandboxWebhookFiring {
  constructor(
    private readonly receiver: BankLinkWebhookReceiver,
    private readonly queries: QueryBus,
    @Inject(BANK_LINK) private readonly bankLink: BankLink,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
  ) {}

  async fire(request: { userId: string; requestId: string; linkItemId: string; code: BankLinkWebhookCode }): Promise<void> {
    const sandbox = this.bankLink.sandbox;
    if (!sandbox) throw new NotFoundError('Sandbox operation');
    // Another user's item, or a disconnected one, is not there for this user.
    await this.queries.execute(new GetLinkItem(request.userId, request.linkItemId));
    let fired;
    try {
      fired = await sandbox.fireWebhook({ itemId: request.linkItemId, code: request.code });
    } catch (error) {
      if (error instanceof BankLinkError && error.code === 'ITEM_NOT_FOUND') throw new NotFoundError('Link item');
      throw error;
    }
    const receipt = await this.receiver.receive(fired.rawBody, fired.headers, request.requestId);
    switch (receipt.outcome) {
      case 'applied':
        return this.readYourWrites.waitFor(receipt.position, WEBHOOK_READ_MODELS);
      case 'duplicate':
        return;
      case 'ignored':
        // Disconnected between the check above and the delivery.
        throw new NotFoundError('Link item');
      case 'rejected':
        throw new Error('The sandbox’s own webhook did not verify: its secret or clock differs from the receiver’s');
      case 'malformed':
        throw new Error(`The sandbox’s own webhook was refused: ${receipt.problem}`);
      default: {
        const unreachable: never = receipt;
        throw new Error(`Unknown webhook receipt ${JSON.stringify(unreachable)}`);
      }
    }
  }
}
