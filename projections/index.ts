import type { ProjectionDefinition } from '../src/infrastructure/projections/projection.js';
import { accountsProjection } from './accounts/accounts.projection.js';
import { balanceSnapshotsProjection } from './balance-snapshots/balance-snapshots.projection.js';
import { brokerageProjection } from './brokerage/brokerage.projection.js';
import { categoriesProjection } from './categories/categories.projection.js';
import { linkItemsProjection } from './link-items/link-items.projection.js';
import { recurringProjection } from './recurring/recurring.projection.js';
import { spendingProjection } from './spending/spending.projection.js';
import { tagsProjection } from './tags/tags.projection.js';
import { transactionActivityProjection } from './transaction-activity/transaction-activity.projection.js';
import { transactionsProjection } from './transactions/transactions.projection.js';
import { userSettingsProjection } from './user-settings/user-settings.projection.js';

/** Every read model the service keeps; the README's projection list mirrors this one. */
export const PROJECTIONS: readonly ProjectionDefinition[] = [
  accountsProjection,
  transactionsProjection,
  transactionActivityProjection,
  balanceSnapshotsProjection,
  tagsProjection,
  categoriesProjection,
  linkItemsProjection,
  brokerageProjection,
  userSettingsProjection,
  spendingProjection,
  recurringProjection,
];
