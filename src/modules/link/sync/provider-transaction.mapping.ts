import { nameBasedId } from '../../../core/ids.js';
import { systemCategoryId, systemTaxonomyOf } from '../../categories/user-categories.js';
import type { ProviderValues, TransactionImported } from '../../transactions/imported-transaction.js';
import type { ProviderTransaction } from '../bank-link.port.js';
import { linkedAccountIdOf } from '../link-items/link-item.js';

const IMPORTED_TRANSACTION_NAMESPACE = 'c3d5e7f9-2a4b-4c6d-8e0f-1a3b5c7d9e21';

/**
 * The transaction id of a provider transaction: name-based on (user, item, provider transaction
 * id), so importing the same one again finds its stream and appends nothing.
 */
export function importedTransactionIdOf(userId: string, linkItemId: string, providerTransactionId: string): string {
  return nameBasedId(IMPORTED_TRANSACTION_NAMESPACE, `${userId}\n${linkItemId}\n${providerTransactionId}`);
}

/** The provider's category systemKey as the user's system category (unknown keys: none). */
export function categoryIdOf(userId: string, categorySystemKey: string | null): string | null {
  if (categorySystemKey === null) return null;
  const id = systemCategoryId(userId, categorySystemKey);
  return systemTaxonomyOf(userId).categories.has(id) ? id : null;
}

export function providerValuesFrom(userId: string, transaction: ProviderTransaction): ProviderValues {
  return {
    name: transaction.name,
    merchantName: transaction.merchantName,
    amount: transaction.amount,
    date: transaction.date,
    categoryId: categoryIdOf(userId, transaction.categorySystemKey),
    paymentChannel: transaction.paymentChannel,
    location: { ...transaction.location },
    pending: transaction.pending,
    authorizedDate: transaction.authorizedDate,
    counterparties: transaction.counterparties.map((counterparty) => ({
      name: counterparty.name,
      type: counterparty.type,
      logoUrl: counterparty.logo_url,
      website: counterparty.website,
      entityId: counterparty.entity_id,
      confidenceLevel: counterparty.confidence_level,
    })),
    logoUrl: transaction.logoUrl,
    website: transaction.website,
  };
}

export function importedTransactionOf(userId: string, linkItemId: string, transaction: ProviderTransaction): TransactionImported['data'] {
  return {
    transactionId: importedTransactionIdOf(userId, linkItemId, transaction.transactionId),
    accountId: linkedAccountIdOf(userId, linkItemId, transaction.accountId),
    source: 'bank_link',
    linkItemId,
    linkAccountId: transaction.accountId,
    providerTransactionId: transaction.transactionId,
    isoCurrencyCode: transaction.isoCurrencyCode,
    replacesTransactionId: transaction.pendingTransactionId === null ? null : importedTransactionIdOf(userId, linkItemId, transaction.pendingTransactionId),
    ...providerValuesFrom(userId, transaction),
  };
}
