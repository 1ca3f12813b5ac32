import { isoDate } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import { normaliseDecimal } from '../../core/money.js';
import { handleCommand } from '../../infrastructure/event-store/handle-command.js';
import type { JobDefinition } from '../../infrastructure/jobs/job.js';
import type { Runtime } from '../../infrastructure/runtime/runtime.js';
import { type AccountType, accountStreamId } from './account.js';
import { type AccountCommand, accountDecider } from './account.decider.js';

const PAGE = 500;

/**
 * Every night, every open account but brokerage-linked ones (manual and bank-linked, investments
 * included: rule 12 leaves out only brokerage value, which has its own series) gets the day's
 * balance snapshot. Idempotent:
 * an account already snapshotted that day is left alone, so a retried or repeated run adds nothing.
 * A linked account's balances are its item's, read from the rows this job pages through (they
 * reflect the item's last balances refresh); its snapshot goes on its own `account-<id>` stream,
 * beside the user's credit-limit overrides, so the same once-a-day rule holds for it.
 */
export function nightlyBalanceSnapshotsJob(runtime: Pick<Runtime, 'database' | 'eventStore' | 'clock'>): JobDefinition<Record<string, never>> {
  return {
    name: 'balance-snapshots-nightly',
    schedule: { dailyAtUtc: '23:55', input: {} },
    async handle() {
      const now = runtime.clock.now();
      const date = isoDate(now);
      const runId = newId();
      let after = '00000000-0000-0000-0000-000000000000';
      for (;;) {
        const accounts = await runtime.database.db
          .selectFrom('accounts')
          .select(['id', 'user_id', 'type', 'link_item_uuid', 'current', 'available', 'credit_limit'])
          .where('deleted_at', 'is', null)
          .where('source', '<>', 'brokerage_link')
          .where('id', '>', after)
          .orderBy('id')
          .limit(PAGE)
          .execute();
        for (const account of accounts) {
          const command = snapshotCommand(account, date);
          if (command === null) continue;
          await handleCommand(runtime.eventStore, accountStreamId(account.id), accountDecider, command, { userId: account.user_id, actor: 'system', requestId: runId, now }, 'Account');
        }
        if (accounts.length < PAGE) return;
        after = accounts[accounts.length - 1].id;
      }
    },
  };
}

interface ListedAccount {
  readonly id: string;
  readonly type: string;
  readonly link_item_uuid: string | null;
  readonly current: string | null;
  readonly available: string | null;
  readonly credit_limit: string | null;
}

/** A linked account without a current balance from its provider has nothing to snapshot. */
function snapshotCommand(account: ListedAccount, date: string): AccountCommand | null {
  if (account.link_item_uuid === null) return { type: 'TakeBalanceSnapshot', accountId: account.id, date };
  if (account.current === null) return null;
  return {
    type: 'TakeLinkedBalanceSnapshot',
    accountId: account.id,
    date,
    accountType: account.type as AccountType,
    current: normaliseDecimal(account.current),
    available: account.available === null ? null : normaliseDecimal(account.available),
    institutionCreditLimit: account.credit_limit === null ? null : normaliseDecimal(account.credit_limit),
  };
}
