import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Clock } from '../../../core/clock.js';
import { toAmountNumber } from '../../../core/money.js';
import { calendarDayIn } from '../../../core/time-zone.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import { CLOCK, DATABASE } from '../../../infrastructure/runtime/tokens.js';
import { type JoinedCategoryColumns, joinedCategoryOf, userCategoriesCall, userCategoryGroupsCall } from '../../categories/category-directory.js';
import { userTimeZone } from '../../settings/user-settings.queries.js';
import type { RecurringStreamResponse, RecurringStreamsResponse } from './http/recurring.responses.js';

export class ListRecurringStreams extends Query<RecurringStreamsResponse> {
  constructor(readonly userId: string) {
    super();
  }
}

export interface RecurringStreamRow extends JoinedCategoryColumns {
  id: string;
  account_id: string;
  account_name: string;
  account_type: string;
  account_subtype: string | null;
  institution_name: string | null;
  institution_logo: string | null;
  institution_url: string | null;
  stream_type: string;
  frequency: string;
  status: string;
  average_amount: string;
  last_amount: string;
  first_date: string;
  last_date: string;
  predicted_next_date: string | null;
  transaction_ids: string[];
  merchant_name: string | null;
  description: string;
  updated_at: Date;
}

/**
 * Active streams only: not tombstoned, still within their last active day on the user's today
 * (a stream that stopped leaves the list that day, before a refresh records it), and in a live
 * account. Account, institution and category are joined now, so a rename shows at once.
 */
@QueryHandler(ListRecurringStreams)
export class ListRecurringStreamsHandler implements IQueryHandler<ListRecurringStreams> {
  constructor(
    @Inject(DATABASE) private readonly db: Kysely<Database>,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ userId }: ListRecurringStreams): Promise<RecurringStreamsResponse> {
    const today = calendarDayIn(await userTimeZone(this.db, userId), this.clock.now());
    const rows = await recurringStreamRows(this.db, userId, sql`r.status <> 'TOMBSTONED' AND r.active_until >= ${today}`);
    return { streams: rows.map(recurringStreamOf) };
  }
}

/** A user's recurring streams in live accounts meeting `condition`, with account, institution and category joined now. */
export async function recurringStreamRows(db: Kysely<Database>, userId: string, condition: RawBuilder<unknown>): Promise<RecurringStreamRow[]> {
  const { rows } = await sql<RecurringStreamRow>`
      SELECT r.id, r.account_id, a.name AS account_name, a.type AS account_type, a.subtype AS account_subtype,
             a.institution_name, a.institution_logo, a.institution_url,
             r.stream_type, r.frequency, r.status, r.average_amount::text AS average_amount, r.last_amount::text AS last_amount,
             to_char(r.first_date, 'YYYY-MM-DD') AS first_date, to_char(r.last_date, 'YYYY-MM-DD') AS last_date,
             to_char(r.predicted_next_date, 'YYYY-MM-DD') AS predicted_next_date, r.transaction_ids, r.merchant_name, r.description,
             r.category_id, c.name AS category_name, c.icon_key AS category_icon_key, c.system_key AS category_system_key,
             c.group_id AS category_group_id, g.name AS category_group_name, g.system_key AS category_group_system_key, r.updated_at
        FROM recurring_streams r
        JOIN accounts a ON a.id = r.account_id AND a.user_id = r.user_id AND a.deleted_at IS NULL
        LEFT JOIN ${userCategoriesCall(userId)} c ON c.id = r.category_id
        LEFT JOIN ${userCategoryGroupsCall(userId)} g ON g.id = c.group_id
       WHERE r.user_id = ${userId} AND ${condition}
       ORDER BY r.predicted_next_date, r.id`.execute(db);
  return rows;
}

export function recurringStreamOf(row: RecurringStreamRow): RecurringStreamResponse {
  return {
    id: row.id,
    accountId: row.account_id,
    accountName: row.account_name,
    accountType: row.account_type,
    accountSubtype: row.account_subtype,
    averageAmount: toAmountNumber(row.average_amount) as number,
    lastAmount: toAmountNumber(row.last_amount) as number,
    category: joinedCategoryOf(row),
    description: row.description,
    firstDate: row.first_date,
    lastDate: row.last_date,
    frequency: row.frequency,
    status: row.status,
    isActive: row.status !== 'TOMBSTONED',
    institutionLogo: row.institution_logo,
    institutionName: row.institution_name,
    institutionUrl: row.institution_url,
    merchantName: row.merchant_name,
    predictedNextDate: row.predicted_next_date,
    streamId: row.id,
    streamType: row.stream_type,
    transactionIds: row.transaction_ids,
    updatedAt: row.updated_at.toISOString(),
  };
}

