import { spendingProjection } from '../../../../projections/spending/spending.projection.js';
import { transactionActivityProjection } from '../../../../projections/transaction-activity/transaction-activity.projection.js';
import { transactionsProjection } from '../../../../projections/transactions/transactions.projection.js';

/** What a transaction write's response and the writer's next reads (the transaction, its activity, their spending) are built from. */
export const TRANSACTION_READ_MODELS = [transactionsProjection.name, transactionActivityProjection.name, spendingProjection.name];
