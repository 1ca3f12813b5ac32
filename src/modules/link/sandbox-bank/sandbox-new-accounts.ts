import type { Institution } from '../bank-link.port.js';
import { hashSeed, mix32 } from '../../../core/seeded-random.js';
import { accountIdSeries } from './sandbox-history.generator.js';
import type { SandboxAccount } from './sandbox-history.js';
import { ACCOUNT_ROLES } from './sandbox-ledger.js';

/** What every account the bank opens after the link starts with, and keeps: it has no transactions. */
export const NEW_ACCOUNT_OPENING_BALANCE = '1000.00';

/**
 * The accounts the bank opened for an item after it was linked (NEW_ACCOUNTS_AVAILABLE), the first
 * `count` of them: what reconnects have added to the item. Each is a savings account without
 * transactions, its balance its opening one. Its `linkAccountId` continues the series of the item's
 * generated accounts (from the item's ledger seed, the numbers after the four generated ones), so it
 * is deterministic and unique within the item; its mask comes from the same seed and its number.
 */
export function newlyOpenedAccounts(ledger: { readonly seed: number; readonly institution: Institution }, count: number): SandboxAccount[] {
  const accountId = accountIdSeries(ledger);
  return Array.from({ length: count }, (_, index): SandboxAccount => {
    const number = index + 1;
    const name = number === 1 ? 'New Savings' : `New Savings ${number}`;
    return {
      linkAccountId: accountId(ACCOUNT_ROLES.length + index),
      name,
      officialName: `${ledger.institution.name} ${name} Account`,
      mask: String(1000 + (mix32(hashSeed(ledger.seed, 'new-account-mask', number)) % 9000)),
      type: 'depository',
      subtype: 'savings',
      currency: 'USD',
      balances: { current: NEW_ACCOUNT_OPENING_BALANCE, available: NEW_ACCOUNT_OPENING_BALANCE, limit: null },
      openingBalance: NEW_ACCOUNT_OPENING_BALANCE,
    };
  });
}
