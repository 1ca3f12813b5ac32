import type { Institution, LinkAccount, ProviderTransaction } from '../bank-link.port.js';

/**
 * The ground truth of a generated sandbox item. Recurring-stream detection is tested against
 * `plantedStreams`; keep this contract stable.
 */
export interface SandboxHistoryOptions {
  readonly seed: number;
  /** `YYYY-MM-DD`: the last day of the two years of history (the sandbox's "today", or the day an item was linked). */
  readonly asOf: string;
  readonly institutionId?: string;
  /** Exact number of transactions on `asOf`; discretionary card spending fills the two years. */
  readonly transactionCount?: number;
  /**
   * Days generated after `asOf` (default 0), at the same pace: the item's future, which a sandbox
   * whose clock moves past `asOf` reveals day by day. `history` then describes the last of them.
   */
  readonly horizonDays?: number;
}

export interface SandboxAccount extends LinkAccount {
  /**
   * The balance before the first day of the history. Invariant:
   * `balances.current = openingBalance + Σ amount of the account's posted transactions`.
   */
  readonly openingBalance: string;
}

export type PlantedStreamFrequency = 'WEEKLY' | 'BIWEEKLY' | 'SEMI_MONTHLY' | 'MONTHLY' | 'ANNUALLY';

export interface PlantedStream {
  readonly streamId: string;
  /** The `linkAccountId` the stream posts to. */
  readonly accountId: string;
  readonly merchantName: string | null;
  readonly description: string;
  readonly frequency: PlantedStreamFrequency;
  readonly streamType: 'inflow' | 'outflow';
  /** Signed decimal string (negative for outflows). */
  readonly averageAmount: string;
  /** The posted transactions of the stream, oldest first. */
  readonly transactionIds: string[];
  readonly firstDate: string;
  readonly lastDate: string;
  /** The planted next occurrence after the day the history describes (for an ended stream, the one that never came). */
  readonly nextDate: string;
  /** False for a stream the sandbox deliberately ended months before `asOf`. */
  readonly isActive: boolean;
}

export interface SandboxHistory {
  readonly institution: Institution;
  readonly accounts: SandboxAccount[];
  /** The item's current transactions (posted and still pending), oldest first. */
  readonly transactions: ProviderTransaction[];
  readonly plantedStreams: PlantedStream[];
}
