import { parseIsoDate } from '../../../core/calendar-day.js';
import { toUnits } from './decimal-units.js';
import { isPairable, isTransferCategory, pairedTransferIds, transferBucketOf } from './own-transfer.matcher.js';
import { normalisePayeeName, payeeKeyOf } from './payee-key.normaliser.js';
import type { RecurringTransaction, StreamType } from './recurring-stream.types.js';
import { frequencyFamilyOf, streamIdOf } from './stream-identity.js';
import { ShardedMapDraft, emptyShardedMap, shardedGet, type ShardedMap } from './sharded-map.js';
import { byDayThenId, fitStreams, type Occurrence, type StreamFit } from './stream.fitter.js';

/**
 * Detection state for one user, kept so that new transactions re-classify only the payee groups
 * they touch. Plain immutable data: every change returns a new index sharing the untouched parts.
 */
export interface RecurringIndex {
  readonly transactions: ShardedMap<IndexedTransaction>;
  readonly groups: ReadonlyMap<string, PayeeGroup>;
  readonly transferBuckets: ShardedMap<TransferBucket>;
  readonly streamsByGroup: ReadonlyMap<string, readonly DetectedStream[]>;
}

/** Same day and same absolute amount: the only transactions that can pair as a transfer. */
export interface TransferBucket {
  readonly memberIds: ReadonlySet<string>;
  readonly pairedIds: ReadonlySet<string>;
}

export interface IndexedTransaction {
  readonly transaction: RecurringTransaction;
  readonly occurrence: Occurrence;
  /** Null when the transaction can never be part of a stream (a categorised transfer). */
  readonly groupKey: string | null;
  readonly bucketKey: string | null;
}

/** One account's transactions with one payee in one direction. */
export interface PayeeGroup {
  readonly key: string;
  readonly accountId: string;
  readonly streamType: StreamType;
  readonly payeeKey: string;
  /** Posted transactions by id: what streams are made of. */
  readonly members: ReadonlyMap<string, IndexedTransaction>;
  /** Pending ones never join a stream, but one in the next expected slot moves the prediction on. */
  readonly pending: ReadonlyMap<string, IndexedTransaction>;
}

export interface DetectedStream {
  readonly id: string;
  readonly groupKey: string;
  readonly fit: StreamFit;
}

export const EMPTY_RECURRING_INDEX: RecurringIndex = {
  transactions: emptyShardedMap(),
  groups: new Map(),
  transferBuckets: emptyShardedMap(),
  streamsByGroup: new Map(),
};

export function indexedTransaction(index: RecurringIndex, id: string): IndexedTransaction | undefined {
  return shardedGet(index.transactions, id);
}

/** Adds new transactions and replaces ones already indexed under the same id. */
export function addTransactions(index: RecurringIndex, transactions: readonly RecurringTransaction[]): RecurringIndex {
  return applyChanges(index, transactions, []);
}

export function removeTransactions(index: RecurringIndex, transactionIds: readonly string[]): RecurringIndex {
  return applyChanges(index, [], transactionIds);
}

function applyChanges(
  index: RecurringIndex,
  upserts: readonly RecurringTransaction[],
  removals: readonly string[],
): RecurringIndex {
  const draft = new IndexDraft(index);
  for (const id of removals) draft.remove(id);
  for (const transaction of upserts) {
    draft.remove(transaction.id);
    draft.insert(transaction);
  }
  draft.repairTransfers();
  draft.refitGroups();
  return draft.result();
}

interface OwnedGroup {
  readonly members: Map<string, IndexedTransaction>;
  readonly pending: Map<string, IndexedTransaction>;
}

/** The mutable working copy of one change; it never writes to the index it started from. */
class IndexDraft {
  private readonly transactions: ShardedMapDraft<IndexedTransaction>;
  private readonly groups: Map<string, PayeeGroup>;
  private readonly buckets: ShardedMapDraft<TransferBucket>;
  private readonly streams: Map<string, readonly DetectedStream[]>;
  private readonly ownedGroups = new Map<string, OwnedGroup>();
  private readonly ownedBuckets = new Map<string, { memberIds: Set<string>; pairedIds: Set<string> }>();
  private readonly touchedGroups = new Set<string>();
  /** Statement names and dates repeat endlessly; each is worked out once per change. */
  private readonly normalise = memoised(normalisePayeeName);
  private readonly dayNumber = memoised(parseIsoDate);

  constructor(index: RecurringIndex) {
    this.transactions = new ShardedMapDraft(index.transactions);
    this.groups = new Map(index.groups);
    this.buckets = new ShardedMapDraft(index.transferBuckets);
    this.streams = new Map(index.streamsByGroup);
  }

  remove(id: string): void {
    const indexed = this.transactions.get(id);
    if (indexed === undefined) return;
    this.transactions.delete(id);
    if (indexed.groupKey !== null) {
      const owned = this.ownGroup(indexed.groupKey, !indexed.transaction.pending);
      owned?.members.delete(id);
      owned?.pending.delete(id);
    }
    if (indexed.bucketKey !== null) {
      const bucket = this.ownBucket(indexed.bucketKey);
      bucket.memberIds.delete(id);
      bucket.pairedIds.delete(id);
    }
  }

  insert(transaction: RecurringTransaction): void {
    const units = toUnits(transaction.amount);
    if (units === 0) return;
    const occurrence: Occurrence = { id: transaction.id, day: this.dayNumber(transaction.date), units };
    const streamType: StreamType = units > 0 ? 'inflow' : 'outflow';
    const payeeKey = isTransferCategory(transaction.categorySystemKey) ? null : payeeKeyOf(transaction, this.normalise);
    const groupKey = payeeKey === null ? null : `${transaction.accountId}\u001f${streamType}\u001f${payeeKey}`;
    const bucketKey = isPairable(transaction.categorySystemKey) && !transaction.pending ? transferBucketOf(occurrence) : null;
    const indexed: IndexedTransaction = { transaction, occurrence, groupKey, bucketKey };
    this.transactions.set(transaction.id, indexed);
    if (groupKey !== null && payeeKey !== null) {
      if (!this.groups.has(groupKey)) {
        const owned: OwnedGroup = { members: new Map(), pending: new Map() };
        this.groups.set(groupKey, { key: groupKey, accountId: transaction.accountId, streamType, payeeKey, ...owned });
        this.ownedGroups.set(groupKey, owned);
      }
      const owned = this.ownGroup(groupKey, !transaction.pending) as OwnedGroup;
      (transaction.pending ? owned.pending : owned.members).set(transaction.id, indexed);
    }
    if (bucketKey !== null) this.ownBucket(bucketKey).memberIds.add(transaction.id);
  }

  /** Re-pairs the buckets this change touched; a transaction whose pairing flips touches its group. */
  repairTransfers(): void {
    for (const [bucketKey, { memberIds, pairedIds }] of this.ownedBuckets) {
      const candidates = [...memberIds].map((id) => {
        const { occurrence, transaction } = this.transactions.get(id) as IndexedTransaction;
        return { ...occurrence, accountId: transaction.accountId };
      });
      const nowPaired = new Set(pairedTransferIds(candidates));
      for (const id of memberIds) {
        if (nowPaired.has(id) === pairedIds.has(id)) continue;
        const groupKey = this.transactions.get(id)?.groupKey;
        if (groupKey !== null && groupKey !== undefined) this.touchedGroups.add(groupKey);
      }
      if (memberIds.size === 0) this.buckets.delete(bucketKey);
      else this.buckets.set(bucketKey, { memberIds, pairedIds: nowPaired });
    }
  }

  refitGroups(): void {
    for (const [groupKey, owned] of this.ownedGroups) {
      if (owned.members.size > 0 || owned.pending.size > 0) continue;
      this.groups.delete(groupKey);
      this.streams.delete(groupKey);
      this.touchedGroups.delete(groupKey);
    }
    for (const groupKey of this.touchedGroups) {
      const group = this.groups.get(groupKey) as PayeeGroup;
      const occurrences: Occurrence[] = [];
      for (const { occurrence, bucketKey } of group.members.values()) {
        if (bucketKey === null || this.buckets.get(bucketKey)?.pairedIds.has(occurrence.id) !== true) occurrences.push(occurrence);
      }
      occurrences.sort(byDayThenId);
      const detected = identify(group, fitStreams(occurrences));
      if (detected.length === 0) this.streams.delete(groupKey);
      else this.streams.set(groupKey, detected);
    }
  }

  result(): RecurringIndex {
    return {
      transactions: this.transactions.result(),
      groups: this.groups,
      transferBuckets: this.buckets.result(),
      streamsByGroup: this.streams,
    };
  }

  /** This change's own copy of a group's transactions; `refit` when posted members change. */
  private ownGroup(groupKey: string, refit: boolean): OwnedGroup | undefined {
    if (refit) this.touchedGroups.add(groupKey);
    const owned = this.ownedGroups.get(groupKey);
    if (owned !== undefined) return owned;
    const group = this.groups.get(groupKey);
    if (group === undefined) return undefined;
    const copy: OwnedGroup = { members: new Map(group.members), pending: new Map(group.pending) };
    this.ownedGroups.set(groupKey, copy);
    this.groups.set(groupKey, { ...group, ...copy });
    return copy;
  }

  private ownBucket(bucketKey: string): { memberIds: Set<string>; pairedIds: Set<string> } {
    let owned = this.ownedBuckets.get(bucketKey);
    if (owned === undefined) {
      const bucket = this.buckets.get(bucketKey);
      owned = { memberIds: new Set(bucket?.memberIds), pairedIds: new Set(bucket?.pairedIds) };
      this.ownedBuckets.set(bucketKey, owned);
    }
    return owned;
  }
}

/** Ordinals count streams of one family at one payee by start, so an older stream keeps its id. */
function identify(group: PayeeGroup, fits: readonly StreamFit[]): DetectedStream[] {
  const ordered = [...fits].sort((a, b) => byDayThenId(a.members[0] as Occurrence, b.members[0] as Occurrence));
  const seen = new Map<string, number>();
  return ordered.map((fit) => {
    const family = frequencyFamilyOf(fit.rule.frequency);
    const ordinal = (seen.get(family) ?? 0) + 1;
    seen.set(family, ordinal);
    const id = streamIdOf({ accountId: group.accountId, streamType: group.streamType, payeeKey: group.payeeKey, family, ordinal });
    return { id, groupKey: group.key, fit };
  });
}

function memoised<T>(compute: (key: string) => T): (key: string) => T {
  const cache = new Map<string, T>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) {
      value = compute(key);
      cache.set(key, value);
    }
    return value;
  };
}
