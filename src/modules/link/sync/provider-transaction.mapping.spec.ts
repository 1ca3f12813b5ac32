import { systemTaxonomyOf } from '../../categories/user-categories.js';
import { linkedAccountIdOf } from '../link-items/link-item.js';
import { generateSandboxHistory } from '../sandbox-bank/index.js';
import { importedTransactionIdOf, importedTransactionOf } from './provider-transaction.mapping.js';

const history = generateSandboxHistory({ seed: 7, asOf: '2026-11-20' });
const userId = '0b8f1c52-61a4-4f0e-9d3c-5a7e2b9c1d40';

describe('provider transaction mapping', () => {
  it("maps every sandbox transaction's category systemKey to one of the user's system categories", () => {
    const { categories } = systemTaxonomyOf(userId);
    for (const transaction of history.transactions) {
      const { categoryId } = importedTransactionOf(userId, 'item-1', transaction);
      if (transaction.categorySystemKey === null) expect(categoryId).toBeNull();
      else expect(categories.get(categoryId as string)?.systemKey).toBe(transaction.categorySystemKey);
    }
  });

  it('names the same stream for the same user, item and provider transaction, and another for anyone else', () => {
    const id = importedTransactionIdOf(userId, 'item-1', 'txn-1');
    expect(importedTransactionIdOf(userId, 'item-1', 'txn-1')).toBe(id);
    expect(importedTransactionIdOf(userId, 'item-2', 'txn-1')).not.toBe(id);
    expect(importedTransactionIdOf('5d2f8a10-0c3e-4b7a-8e61-9f4a2c6b8d13', 'item-1', 'txn-1')).not.toBe(id);
  });

  it("points a posted transaction at its pending one's stream and at the linked account", () => {
    const posted = history.transactions.find((transaction) => transaction.pendingTransactionId !== null);
    expect(posted).toBeDefined();
    const data = importedTransactionOf(userId, 'item-1', posted!);
    expect(data).toMatchObject({
      source: 'bank_link',
      accountId: linkedAccountIdOf(userId, 'item-1', posted!.accountId),
      linkAccountId: posted!.accountId,
      providerTransactionId: posted!.transactionId,
      replacesTransactionId: importedTransactionIdOf(userId, 'item-1', posted!.pendingTransactionId!),
      pending: false,
    });
  });
});
