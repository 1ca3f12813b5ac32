import type { RecurringTransaction } from './recurring-stream.types.js';

/**
 * One payee, however the statement spells it: "NETFLIX.COM 866-579-7172", "Netflix" and
 * "PAYPAL *NETFLIX" all become `netflix`. The key is the grouping key of detection and part of a
 * stream's identity, so it must depend on the transaction alone, never on its neighbours.
 */

/** Counterparty kinds that name the payee itself, not a processor or wallet in between. */
const PAYEE_COUNTERPARTY_TYPES: ReadonlySet<string> = new Set(['merchant', 'income_source']);

const PROCESSOR_PREFIX = /^(?:sq|tst|paypal|pp|ppl|sp|py|in|dd|wpy|ck|pos|ach|gglpay|google|apple\s?pay|venmo|zelle)\s*\*\s*/;
const LEADING_NOISE =
  /^(?:pos|ach|debit card purchase|debit card|debit|checkcard|check card|recurring payment|recurring|purchase authorized on|purchase|preauthorized|pre-authorized|online payment to|payment to)\b\s*/;
const PHONE = /\+?\d?[\s.-]?\(?\d{3}\)?[\s.-]?\d{3}[\s.-]?\d{4}/g;
const STORE_CODE = /(?:#|no\.\s?|store\s)\s*[\w-]*\d[\w-]*/g;
const DOMAIN = /(?:https?:\/\/)?(?:www\.)?([a-z0-9-]+)\.(?:com|net|org|io|co|tv|us|uk|ca|app|fm)\b(?:\/\S*)?/g;
const NOISE_TOKENS: ReadonlySet<string> = new Set([
  'inc', 'llc', 'ltd', 'corp', 'corporation', 'co', 'company',
  'autopay', 'pymt', 'pmt', 'payment', 'payments', 'paid', 'ach', 'debit', 'pos', 'recurring', 'purchase', 'web', 'online',
]);
const US_STATES: ReadonlySet<string> = new Set(
  ('al ak az ar ca co ct de fl ga hi id il in ia ks ky la me md ma mi mn ms mo mt ne nv nh nj nm ny nc nd oh ok ' +
    'or pa ri sc sd tn tx ut vt va wa wv wi wy dc').split(' '),
);

export function payeeNameOf(transaction: RecurringTransaction): string {
  if (transaction.merchantName !== null && transaction.merchantName.trim() !== '') return transaction.merchantName;
  const counterparty = transaction.counterparties?.find((party) => PAYEE_COUNTERPARTY_TYPES.has(party.type));
  return counterparty !== undefined && counterparty.name.trim() !== '' ? counterparty.name : transaction.name;
}

/** `normalise` may be a memoised `normalisePayeeName`. */
export function payeeKeyOf(transaction: RecurringTransaction, normalise: (raw: string) => string = normalisePayeeName): string {
  const bankProduct = bankProductKeyOf(transaction, normalise);
  if (bankProduct !== null) return bankProduct;
  const key = normalise(payeeNameOf(transaction));
  return key !== '' ? key : normalise(transaction.name);
}

/**
 * When the only counterparty is a bank, it is the counterparty of its loans, interest and fees
 * alike, and its statement names vary ("NORTHSTAR BANK AUTO LOAN PMT", "AUTO LOAN PAYMENT"): the
 * bank and the category together name the product.
 */
function bankProductKeyOf(transaction: RecurringTransaction, normalise: (raw: string) => string): string | null {
  if (transaction.merchantName !== null || transaction.categorySystemKey === null) return null;
  const parties = transaction.counterparties ?? [];
  if (parties.some((party) => PAYEE_COUNTERPARTY_TYPES.has(party.type))) return null;
  const bank = parties.find((party) => party.type === 'financial_institution');
  if (bank === undefined) return null;
  return `${normalise(bank.name)} ${transaction.categorySystemKey.toLowerCase()}`;
}

export function normalisePayeeName(raw: string): string {
  let text = raw.toLowerCase().replace(/['’`]/g, '').trim();
  text = stripPrefixes(text);
  text = firstStarredPart(text);
  text = text.replace(DOMAIN, ' $1 ').replace(PHONE, ' ').replace(STORE_CODE, ' ');
  const tokens = text.replace(/[^a-z]+/g, ' ').trim().split(' ').filter((token) => token !== '');
  const meaningful = tokens.filter((token) => !NOISE_TOKENS.has(token));
  const kept = meaningful.length > 0 ? meaningful : tokens;
  if (kept.length > 1 && US_STATES.has(kept[kept.length - 1] as string)) kept.pop();
  return kept.join(' ');
}

function stripPrefixes(text: string): string {
  let current = text;
  for (;;) {
    const next = current.replace(PROCESSOR_PREFIX, '').replace(LEADING_NOISE, '').trimStart();
    if (next === current || next === '') return current;
    current = next;
  }
}

/** "AMAZON.COM*MK1AB2CD" and "NETFLIX *12345": what follows the star is a reference, not the payee. */
function firstStarredPart(text: string): string {
  if (!text.includes('*')) return text;
  const parts = text.split('*').map((part) => part.trim());
  return parts.find((part) => /[a-z]/.test(part.replace(/\d+/g, ''))) ?? text;
}
