import type { Transaction } from 'kysely';
import type { RecordedEvent } from '../../src/core/events.js';
import { nameBasedId } from '../../src/core/ids.js';
import type { Database } from '../../src/infrastructure/database/schema.js';
import type { BrokerageAccountEvent, BrokerageHoldingsRefreshed, PortfolioSnapshotData } from '../../src/modules/brokerage/brokerage.events.js';

const BALANCE_NAMESPACE = '5b0e7c3d-92a4-4f18-8c6d-1e3a7b9f2d40';
const POSITION_NAMESPACE = 'e2c94a17-6d3b-4a05-b8f1-7c0d5e2a9b63';
const SNAPSHOT_NAMESPACE = '9a6f1d2e-3b7c-4e80-a5d9-0f4b8c2e6a17';

/** Rows per INSERT: well below PostgreSQL's 65,535 bind parameters at 15 columns a row. */
const ROWS_PER_INSERT = 1000;

/** The id of an account's balance: one per account, stable across valuations. */
export const brokerageBalanceIdOf = (accountId: string): string => nameBasedId(BALANCE_NAMESPACE, accountId);
export const brokeragePositionIdOf = (accountId: string, symbol: string): string => nameBasedId(POSITION_NAMESPACE, `${accountId}\n${symbol}`);
export const portfolioSnapshotIdOf = (accountId: string, date: string): string => nameBasedId(SNAPSHOT_NAMESPACE, `${accountId}\n${date}`);

/** An account stream's event: its activities, its latest valuation with the positions, its snapshots. */
export async function applyBrokerageAccountEvent(trx: Transaction<Database>, recorded: RecordedEvent<BrokerageAccountEvent>): Promise<void> {
  const event = { type: recorded.type, data: recorded.data } as BrokerageAccountEvent;
  const at = new Date(recorded.metadata.occurredAt);
  const userId = recorded.metadata.userId;
  const { accountId } = event.data;
  switch (event.type) {
    case 'BrokerageActivitiesImported':
      for (let start = 0; start < event.data.activities.length; start += ROWS_PER_INSERT) {
        const chunk = event.data.activities.slice(start, start + ROWS_PER_INSERT);
        await trx
          .insertInto('brokerage_activities')
          .values(
            chunk.map((activity) => ({
              id: activity.id,
              account_id: accountId,
              user_id: userId,
              provider_activity_id: activity.providerActivityId,
              type: activity.type,
              symbol: activity.symbol,
              description: activity.description,
              currency: activity.currency,
              amount: activity.amount,
              fee: activity.fee,
              price: activity.price,
              units: activity.units,
              trade_date: activity.tradeDate,
              settlement_date: activity.settlementDate,
              created_at: at,
            })),
          )
          // The id is name-based on (account, provider id): an activity imported twice is kept once.
          .onConflict((conflict) => conflict.column('id').doNothing())
          .execute();
      }
      break;
    case 'BrokerageHoldingsRefreshed':
      await refreshHoldings(trx, userId, event.data, at, Number(recorded.revision));
      break;
    case 'PortfolioSnapshotsTaken':
      await takeSnapshots(trx, userId, accountId, event.data.snapshots, at, Number(recorded.revision));
      break;
    default: {
      const unknown: never = event;
      throw new Error(`Not a brokerage account event: ${(unknown as { type: string }).type}`);
    }
  }
}

/** The balance row and the positions move together, and only forward: a replayed older valuation changes nothing. */
async function refreshHoldings(trx: Transaction<Database>, userId: string, data: BrokerageHoldingsRefreshed['data'], at: Date, revision: number): Promise<void> {
  const valuation = {
    currency: data.currency,
    cash: data.cash,
    buying_power: data.buyingPower,
    holdings_value: data.holdingsValue,
    total_value: data.totalValue,
    last_sync: new Date(data.asOf),
    updated_at: at,
    revision,
  };
  const moved = await trx
    .insertInto('brokerage_balances')
    .values({ id: brokerageBalanceIdOf(data.accountId), account_id: data.accountId, user_id: userId, created_at: at, ...valuation })
    .onConflict((conflict) => conflict.column('account_id').doUpdateSet(valuation).where('brokerage_balances.revision', '<', revision))
    .returning('account_id')
    .executeTakeFirst();
  if (!moved) return;
  await trx.deleteFrom('brokerage_positions').where('account_id', '=', data.accountId).execute();
  if (data.positions.length === 0) return;
  await trx
    .insertInto('brokerage_positions')
    .values(
      data.positions.map((position) => ({
        id: brokeragePositionIdOf(data.accountId, position.symbol),
        account_id: data.accountId,
        user_id: userId,
        symbol: position.symbol,
        description: position.description,
        currency: position.currency,
        units: position.units,
        average_price: position.averagePrice,
        price: position.price,
        market_value: position.marketValue,
      })),
    )
    .execute();
}

/** One snapshot per account per day: the later event wins, a replayed earlier one does not. */
async function takeSnapshots(trx: Transaction<Database>, userId: string, accountId: string, snapshots: readonly PortfolioSnapshotData[], at: Date, revision: number): Promise<void> {
  const byDate = new Map(snapshots.map((snapshot) => [snapshot.date, snapshot]));
  const rows = [...byDate.values()].map((snapshot) => ({
    id: portfolioSnapshotIdOf(accountId, snapshot.date),
    account_id: accountId,
    user_id: userId,
    date: snapshot.date,
    total_value: snapshot.totalValue,
    cash_value: snapshot.cashValue,
    holdings_value: snapshot.holdingsValue,
    currency: snapshot.currency,
    taken_at: at,
    revision,
  }));
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    await trx
      .insertInto('portfolio_snapshots')
      .values(rows.slice(start, start + ROWS_PER_INSERT))
      .onConflict((conflict) =>
        conflict
          .columns(['account_id', 'date'])
          .doUpdateSet((eb) => ({
            total_value: eb.ref('excluded.total_value'),
            cash_value: eb.ref('excluded.cash_value'),
            holdings_value: eb.ref('excluded.holdings_value'),
            currency: eb.ref('excluded.currency'),
            taken_at: eb.ref('excluded.taken_at'),
            revision: eb.ref('excluded.revision'),
          }))
          .where('portfolio_snapshots.revision', '<', revision),
      )
      .execute();
  }
}
