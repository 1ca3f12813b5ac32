import type { DomainEvent } from '../../core/events.js';
import type { EditableValues, PaymentChannel, TransactionLocation } from './transaction.js';

export interface ImportedCounterparty {
  name: string;
  type: string;
  logoUrl: string | null;
  website: string | null;
  entityId: string | null;
  confidenceLevel: string | null;
}

/**
 * What the provider says about a transaction: the editable values a sync may write (when the user
 * has not locked them) and `null` restores, plus what only the provider sets.
 */
export interface ProviderValues {
  name: string;
  merchantName: string | null;
  amount: string;
  date: string;
  categoryId: string | null;
  paymentChannel: PaymentChannel | null;
  location: TransactionLocation | null;
  pending: boolean;
  authorizedDate: string | null;
  counterparties: ImportedCounterparty[];
  logoUrl: string | null;
  website: string | null;
}

/** The provider's values that are also editable: the fields a sync may change. */
export const PROVIDER_EDITABLE_FIELDS = ['name', 'merchantName', 'amount', 'date', 'categoryId', 'paymentChannel', 'location'] as const satisfies readonly (keyof EditableValues & keyof ProviderValues)[];

/**
 * A provider transaction became a transaction stream. `replacesTransactionId` names the pending
 * transaction (its service id) that this posted one replaces, when the provider says so.
 */
export type TransactionImported = DomainEvent<
  'TransactionImported',
  ProviderValues & {
    transactionId: string;
    accountId: string;
    source: 'bank_link';
    linkItemId: string;
    linkAccountId: string;
    providerTransactionId: string;
    isoCurrencyCode: string;
    replacesTransactionId: string | null;
  }
>;

/** The provider dropped the transaction: it leaves the lists, its stream stays. */
export type TransactionRemoved = DomainEvent<'TransactionRemoved', { transactionId: string; accountId: string }>;

/** A pending transaction retired because a posted one (`byTransactionId`) took its place and the user's edits. */
export type TransactionReplaced = DomainEvent<'TransactionReplaced', { transactionId: string; accountId: string; byTransactionId: string }>;

/** A counterparty as the transactions read model and the API show it (the provider's own field names). */
export function counterpartyRowOf(counterparty: ImportedCounterparty) {
  return {
    name: counterparty.name,
    type: counterparty.type,
    logo_url: counterparty.logoUrl,
    website: counterparty.website,
    entity_id: counterparty.entityId,
    confidence_level: counterparty.confidenceLevel,
  };
}

export function editableValuesFromProvider(values: ProviderValues): EditableValues {
  return {
    name: values.name,
    merchantName: values.merchantName,
    amount: values.amount,
    date: values.date,
    categoryId: values.categoryId,
    notes: null,
    paymentChannel: values.paymentChannel,
    location: values.location,
    tagIds: [],
  };
}

export function providerValuesOf(data: ProviderValues): ProviderValues {
  return {
    name: data.name,
    merchantName: data.merchantName,
    amount: data.amount,
    date: data.date,
    categoryId: data.categoryId,
    paymentChannel: data.paymentChannel,
    location: data.location,
    pending: data.pending,
    authorizedDate: data.authorizedDate,
    counterparties: data.counterparties,
    logoUrl: data.logoUrl,
    website: data.website,
  };
}
