import { type AccountType, SUBTYPES_BY_TYPE } from '../../accounts/account.js';
import type { LinkAccount, LinkAccountType } from '../bank-link.port.js';
import { type LinkedAccountData, linkedAccountIdOf } from './link-item.js';

const TYPE_OF: Readonly<Record<LinkAccountType, AccountType>> = {
  depository: 'bank',
  credit: 'credit_card',
  loan: 'loan',
  investment: 'investment',
};

/** Provider subtypes that say the same thing in other words. */
const SUBTYPE_SYNONYMS: Readonly<Record<string, string>> = {
  'money market': 'money market',
  'cash management': 'cash management',
  'student loan': 'student',
  'auto loan': 'auto',
  'home equity line of credit': 'home equity',
  'credit': 'credit card',
  '401(k)': '401k',
  '403(b)': '403b',
  'roth ira': 'roth',
};

/**
 * A provider account in the service's vocabulary: its type mapped, its subtype kept when the
 * vocabulary of that type has it, else `other` where the vocabulary has one, else null.
 */
export function toLinkedAccount(userId: string, linkItemId: string, account: LinkAccount): LinkedAccountData {
  const type = TYPE_OF[account.type];
  return {
    accountId: linkedAccountIdOf(userId, linkItemId, account.linkAccountId),
    linkAccountId: account.linkAccountId,
    name: account.name,
    officialName: account.officialName,
    mask: account.mask,
    providerType: account.type,
    providerSubtype: account.subtype,
    type,
    subtype: serviceSubtype(type, account.subtype),
    currency: account.currency,
    balances: { current: account.balances.current, available: account.balances.available, limit: account.balances.limit },
  };
}

export function serviceSubtype(type: AccountType, providerSubtype: string | null): string | null {
  const vocabulary = SUBTYPES_BY_TYPE[type];
  if (providerSubtype !== null) {
    const lowered = providerSubtype.toLowerCase();
    const candidate = SUBTYPE_SYNONYMS[lowered] ?? lowered;
    if (vocabulary.includes(candidate)) return candidate;
  }
  return vocabulary.includes('other') ? 'other' : null;
}
