import type { AccountBase, PersonalFinanceCategory, Transaction, TransactionCounterparty } from 'plaid';
import { toDecimalString } from '../../../../core/money.js';
import { SYSTEM_TAXONOMY } from '../../../categories/system-taxonomy.js';
import type { ConfidenceLevel, CounterpartyType, LinkAccount, LinkAccountType, PaymentChannel, ProviderCounterparty, ProviderTransaction } from '../../bank-link.port.js';

/**
 * Plaid's objects in the port's terms. Plaid signs amounts from the institution's side (positive:
 * money out of the account) and balances of credit and loan accounts as what is owed (positive);
 * the port signs both from the holder's side, so those are negated here and nowhere else.
 */

export const negatedDecimal = (decimal: string): string => (decimal === '0' ? '0' : decimal.startsWith('-') ? decimal.slice(1) : `-${decimal}`);

/** A JSON number from Plaid as a decimal string, rounded to the four places money keeps. */
export const decimalOf = (value: number): string => toDecimalString(value);

const categoryKeys = new Set(SYSTEM_TAXONOMY.flatMap((group) => group.categories.map((category) => category.systemKey)));
/** Each group's catch-all (`FOOD_AND_DRINK_OTHER_FOOD_AND_DRINK`, `LOAN_PAYMENTS_OTHER_PAYMENT`, …). */
const otherCategoryOfGroup = new Map(
  SYSTEM_TAXONOMY.map((group) => [group.systemKey, group.categories.find((category) => category.systemKey.startsWith(`${group.systemKey}_OTHER_`))?.systemKey ?? null]),
);

/**
 * The taxonomy is Plaid's personal finance categories (v1): the detailed category when the
 * taxonomy has it, else its primary group's catch-all (a detailed category added later, or one
 * of another version), else none.
 */
export function categorySystemKeyOf(category: PersonalFinanceCategory | null | undefined): string | null {
  if (!category) return null;
  if (categoryKeys.has(category.detailed)) return category.detailed;
  return otherCategoryOfGroup.get(category.primary) ?? null;
}

const PAYMENT_CHANNELS: readonly PaymentChannel[] = ['in store', 'online', 'other'];
const COUNTERPARTY_TYPES: readonly CounterpartyType[] = ['merchant', 'financial_institution', 'payment_app', 'marketplace', 'payment_terminal', 'income_source'];
const CONFIDENCE_LEVELS: readonly ConfidenceLevel[] = ['VERY_HIGH', 'HIGH', 'MEDIUM', 'LOW', 'UNKNOWN'];

const oneOf = <T extends string>(allowed: readonly T[], value: string | null | undefined): T | null => (allowed as readonly (string | null | undefined)[]).includes(value) ? (value as T) : null;

/** Counterparties of a type the port does not know are left out rather than mislabelled. */
function counterpartiesOf(counterparties: readonly TransactionCounterparty[] | undefined): ProviderCounterparty[] {
  return (counterparties ?? []).flatMap((counterparty) => {
    const type = oneOf(COUNTERPARTY_TYPES, counterparty.type);
    if (type === null) return [];
    return [{ name: counterparty.name, type, logo_url: counterparty.logo_url ?? null, website: counterparty.website ?? null, entity_id: counterparty.entity_id ?? null, confidence_level: oneOf(CONFIDENCE_LEVELS, counterparty.confidence_level) }];
  });
}

export function providerTransactionOf(transaction: Transaction): ProviderTransaction {
  const location = transaction.location;
  return {
    transactionId: transaction.transaction_id,
    accountId: transaction.account_id,
    amount: negatedDecimal(decimalOf(transaction.amount)),
    isoCurrencyCode: transaction.iso_currency_code ?? transaction.unofficial_currency_code ?? 'USD',
    date: transaction.date,
    authorizedDate: transaction.authorized_date ?? null,
    name: transaction.name,
    merchantName: transaction.merchant_name ?? null,
    categorySystemKey: categorySystemKeyOf(transaction.personal_finance_category),
    paymentChannel: oneOf(PAYMENT_CHANNELS, transaction.payment_channel) ?? 'other',
    pending: transaction.pending,
    pendingTransactionId: transaction.pending_transaction_id ?? null,
    counterparties: counterpartiesOf(transaction.counterparties),
    location: {
      address: location?.address ?? null,
      city: location?.city ?? null,
      country: location?.country ?? null,
      postal_code: location?.postal_code ?? null,
      region: location?.region ?? null,
      store_number: location?.store_number ?? null,
      lat: location?.lat ?? null,
      lon: location?.lon ?? null,
    },
    logoUrl: transaction.logo_url ?? null,
    website: transaction.website ?? null,
  };
}

/** Plaid's `brokerage` accounts are investment accounts; its `other` ones are kept as deposit accounts. */
const TYPE_OF: Readonly<Record<string, LinkAccountType>> = { depository: 'depository', credit: 'credit', loan: 'loan', investment: 'investment', brokerage: 'investment', other: 'depository' };

export function linkAccountOf(account: AccountBase): LinkAccount {
  const type = TYPE_OF[account.type] ?? 'depository';
  const owed = type === 'credit' || type === 'loan';
  const { current, available, limit } = account.balances;
  return {
    linkAccountId: account.account_id,
    name: account.name,
    officialName: account.official_name ?? null,
    mask: account.mask ?? null,
    type,
    subtype: account.subtype ?? null,
    currency: account.balances.iso_currency_code ?? account.balances.unofficial_currency_code ?? 'USD',
    balances: {
      current: current === null || current === undefined ? null : owed ? negatedDecimal(decimalOf(current)) : decimalOf(current),
      available: available === null || available === undefined ? null : decimalOf(available),
      limit: limit === null || limit === undefined ? null : decimalOf(limit),
    },
  };
}
