/**
 * Plain data in and out of recurring-stream detection. Amounts are signed decimal strings from the
 * account holder's side (positive in, negative out); dates are `YYYY-MM-DD`.
 */

export type RecurringFrequency = 'WEEKLY' | 'BIWEEKLY' | 'SEMI_MONTHLY' | 'MONTHLY' | 'ANNUALLY' | 'UNKNOWN';

export type RecurringStatus = 'MATURE' | 'EARLY_DETECTION' | 'TOMBSTONED' | 'UNKNOWN';

export type StreamType = 'inflow' | 'outflow';

/** The frequencies detection can assign; `UNKNOWN` exists only in the API vocabulary. */
export type DetectedFrequency = Exclude<RecurringFrequency, 'UNKNOWN'>;

export interface RecurringCounterparty {
  readonly name: string;
  readonly type: string;
}

export interface RecurringTransaction {
  readonly id: string;
  readonly accountId: string;
  /** Signed decimal string: positive money in, negative money out. */
  readonly amount: string;
  readonly date: string;
  readonly name: string;
  readonly merchantName: string | null;
  readonly counterparties: readonly RecurringCounterparty[] | null;
  readonly categorySystemKey: string | null;
  readonly pending: boolean;
}

export interface RecurringStream {
  readonly id: string;
  readonly accountId: string;
  readonly streamType: StreamType;
  readonly frequency: RecurringFrequency;
  readonly status: RecurringStatus;
  readonly isActive: boolean;
  /** Signed like the transactions: negative for outflows. */
  readonly averageAmount: string;
  readonly lastAmount: string;
  readonly firstDate: string;
  readonly lastDate: string;
  /** Null once the stream is tombstoned: nothing is expected any more. */
  readonly predictedNextDate: string | null;
  /** Oldest first. */
  readonly transactionIds: readonly string[];
  readonly merchantName: string | null;
  readonly description: string;
  /** A category `systemKey`, or null when the stream's transactions carry none. */
  readonly category: string | null;
}

export interface DetectionOptions {
  /** `YYYY-MM-DD`: "today" for status and activity; detection itself does not depend on it. */
  readonly asOf: string;
}

/** One posted transaction of a payee group, reduced to what cadence fitting needs. */
export interface Occurrence {
  readonly id: string;
  /** Days since 1970-01-01. */
  readonly day: number;
  /** Signed ten-thousandths. */
  readonly units: number;
}
