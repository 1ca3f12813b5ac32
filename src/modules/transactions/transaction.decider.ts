import { unhandled } from '../../core/exhaustive.js';
import type { Decider } from '../../core/decider.js';
import { DomainRuleError, NotFoundError } from '../../core/errors.js';
import {
  EDITABLE_FIELDS,
  type EditableField,
  type EditableValues,
  evolveTransaction,
  type FieldChange,
  initialTransactionState,
  type TransactionCreated,
  type TransactionEvent,
  type TransactionState,
} from './transaction.js';
import { decideImport, type TransactionImportCommand } from './transaction-import.decider.js';
import { checkSplits, sameSplits, type SplitPart } from './splits/split.js';
import { amountsMirror, type PairedBy, type TransferCounterpart, type UnpairReason } from './transfers/transfer.js';
import { afterAmountChange } from './amount-change.js';

/** A sparse edit: a present value writes and locks the field, `null` restores and unlocks it. */
export type TransactionPatch = { [Field in EditableField]?: EditableValues[Field] | null };

export type TransactionCommand =
  | { type: 'CreateTransaction'; data: TransactionCreated['data'] }
  | { type: 'EditTransaction'; transactionId: string; patch: TransactionPatch }
  | { type: 'DeleteTransaction'; transactionId: string }
  /**
   * Bulk apply (`lock: true`: the user's write) or a deleted tag's fan-out (`lock: false`: the
   * lock stays as it was). Only a change of the set is recorded, so repeating it adds nothing.
   */
  | { type: 'ChangeTransactionTags'; transactionId: string; add: string[]; remove: string[]; lock: boolean }
  /**
   * A rule's changes (decision 0042): only to fields the user has not locked, and without locking
   * them; tags are added to the set. What the transaction already has records nothing.
   */
  | { type: 'ApplyRule'; transactionId: string; changes: RuleFieldChanges }
  /** `splits: []` removes them. Ids are the caller's; parts equal to the current ones (ids apart) record nothing. */
  | { type: 'SplitTransaction'; transactionId: string; splits: SplitPart[] }
  /**
   * One side of a pair (decision 0043): the caller pairs the other side next. An automatic pairing
   * decides nothing when this side is paired already or the user unpaired the two before; the
   * user's pairing replaces a pair this side is in.
   */
  | { type: 'PairTransfer'; transactionId: string; counterpart: TransferCounterpart & { amount: string }; pairedBy: PairedBy }
  /** `onlyFrom`: leave the pair only when it is with that transaction (a reconciliation's guard). */
  | { type: 'UnpairTransfer'; transactionId: string; reason: UnpairReason; onlyFrom?: string }
  | TransactionImportCommand;

/** The fields a rule may set, and tags it may add. */
export interface RuleFieldChanges {
  readonly categoryId?: string;
  readonly merchantName?: string;
  readonly notes?: string;
  readonly addTagIds?: readonly string[];
}

export function decideTransaction(command: TransactionCommand, state: TransactionState): TransactionEvent[] {
  switch (command.type) {
    case 'CreateTransaction':
      if (state.status !== 'absent') throw new DomainRuleError('TRANSACTION_EXISTS', 'A transaction with this id already exists.', 409);
      return [{ type: 'TransactionCreated', data: command.data }];
    case 'EditTransaction': {
      if (state.status !== 'live' || !state.current || !state.original) throw new NotFoundError('Transaction');
      // Tags have events of their own (TagApplied / TagRemoved); every other field is an edit.
      const changes = EDITABLE_FIELDS.filter((field) => field !== 'tagIds').flatMap((field) => changeOf(field, command.patch, state));
      const edited: TransactionEvent[] = changes.length === 0 ? [] : [{ type: 'TransactionEdited', data: { transactionId: command.transactionId, changes } }, ...afterAmountChange(command.transactionId, changes, state)];
      const tagIds = command.patch.tagIds;
      if (tagIds === undefined) return edited;
      const restoring = tagIds === null;
      return [...edited, ...tagEvents(command.transactionId, state, restoring ? state.original.tagIds : tagIds, !restoring)];
    }
    case 'ChangeTransactionTags': {
      // Skipped, not refused: a bulk apply names transactions that may have gone meanwhile.
      if (state.status !== 'live' || !state.current) return [];
      const target = [...state.current.tagIds.filter((tagId) => !command.remove.includes(tagId)), ...command.add];
      if (sameSet(target, state.current.tagIds)) return [];
      return tagEvents(command.transactionId, state, target, command.lock || state.locked.has('tagIds'));
    }
    case 'ApplyRule':
      return ruleChanges(command.transactionId, command.changes, state);
    case 'SplitTransaction':
      return splitEvents(command.transactionId, command.splits, state);
    case 'PairTransfer':
      return pairEvents(command, state);
    case 'UnpairTransfer':
      if (!state.transfer || (command.onlyFrom !== undefined && state.transfer.transactionId !== command.onlyFrom)) return [];
      return [{ type: 'TransferUnpaired', data: { transactionId: command.transactionId, counterpart: state.transfer, reason: command.reason } }];
    case 'DeleteTransaction':
      // Idempotent, and provider-managed transactions are the provider's to remove.
      if (state.status !== 'live' || state.source !== 'manual' || !state.accountId) return [];
      return [{ type: 'TransactionDeleted', data: { transactionId: command.transactionId, accountId: state.accountId } }];
    case 'ImportTransaction':
    case 'UpdateFromProvider':
    case 'RemoveImportedTransaction':
    case 'RetireReplacedTransaction':
      return decideImport(command, state);
    default: {
      unhandled(command);
      throw new Error(`Unknown transaction command ${(command as { type: string }).type}`);
    }
  }
}

function splitEvents(transactionId: string, splits: SplitPart[], state: TransactionState): TransactionEvent[] {
  if (state.status !== 'live' || !state.current) throw new NotFoundError('Transaction');
  if (splits.length === 0) {
    return state.splits.length === 0 ? [] : [{ type: 'TransactionSplitsCleared', data: { transactionId, reason: 'user', previousSplits: [...state.splits] } }];
  }
  checkSplits(state.current.amount, splits);
  if (sameSplits(splits, state.splits)) return [];
  return [{ type: 'TransactionSplit', data: { transactionId, splits, previousSplits: [...state.splits] } }];
}

function pairEvents(command: Extract<TransactionCommand, { type: 'PairTransfer' }>, state: TransactionState): TransactionEvent[] {
  const { transactionId, counterpart, pairedBy } = command;
  if (state.status !== 'live' || !state.current || !state.accountId) {
    if (pairedBy === 'user') throw new NotFoundError('Transaction');
    return [];
  }
  if (state.transfer?.transactionId === counterpart.transactionId) return [];
  if (counterpart.transactionId === transactionId || counterpart.accountId === state.accountId || !amountsMirror(state.current.amount, counterpart.amount)) {
    throw new DomainRuleError('NOT_A_TRANSFER_PAIR', 'A transfer pairs two transactions in different accounts whose amounts are opposite and of equal size.', 400);
  }
  const paired: TransactionEvent = { type: 'TransferPaired', data: { transactionId, counterpart: { transactionId: counterpart.transactionId, accountId: counterpart.accountId }, pairedBy } };
  if (pairedBy === 'automatic') return state.transfer || state.neverPairWith.has(counterpart.transactionId) ? [] : [paired];
  return state.transfer ? [{ type: 'TransferUnpaired', data: { transactionId, counterpart: state.transfer, reason: 'user' } }, paired] : [paired];
}

function ruleChanges(transactionId: string, changes: RuleFieldChanges, state: TransactionState): TransactionEvent[] {
  if (state.status !== 'live' || !state.current) return [];
  const current = state.current;
  const fields = (['categoryId', 'merchantName', 'notes'] as const).filter(
    (field) => changes[field] !== undefined && !state.locked.has(field) && !sameValue(current[field], changes[field]),
  );
  const edits: FieldChange[] = fields.map((field) => ({ field, oldValue: current[field], newValue: changes[field] as string, locked: false }));
  const events: TransactionEvent[] = edits.length === 0 ? [] : [{ type: 'TransactionEdited', data: { transactionId, changes: edits } }];
  const adding = (changes.addTagIds ?? []).filter((tagId) => !current.tagIds.includes(tagId));
  if (adding.length > 0 && !state.locked.has('tagIds')) events.push(...tagEvents(transactionId, state, [...current.tagIds, ...adding], false));
  return events;
}

function changeOf(field: EditableField, patch: TransactionPatch, state: TransactionState): FieldChange[] {
  if (!(field in patch) || patch[field] === undefined) return [];
  const current = state.current as EditableValues;
  const original = state.original as EditableValues;
  const restoring = patch[field] === null;
  const newValue = restoring ? original[field] : (patch[field] as EditableValues[EditableField]);
  const locked = !restoring;
  if (sameValue(current[field], newValue) && state.locked.has(field) === locked) return [];
  return [{ field, oldValue: current[field], newValue, locked }];
}

/**
 * From the current set to `target`: a TagRemoved for what leaves, then a TagApplied for what
 * comes, each with the set after it; a write that changes only the lock is a TagApplied of none.
 */
function tagEvents(transactionId: string, state: TransactionState, target: readonly string[], locked: boolean): TransactionEvent[] {
  const current = (state.current as EditableValues).tagIds;
  const wanted = [...new Set(target)].sort();
  const removed = current.filter((tagId) => !wanted.includes(tagId));
  const applied = wanted.filter((tagId) => !current.includes(tagId));
  const events: TransactionEvent[] = [];
  if (removed.length > 0) events.push({ type: 'TagRemoved', data: { transactionId, tagIds: removed, resultingTagIds: current.filter((tagId) => wanted.includes(tagId)).sort(), locked } });
  if (applied.length > 0 || (removed.length === 0 && state.locked.has('tagIds') !== locked)) {
    events.push({ type: 'TagApplied', data: { transactionId, tagIds: applied, resultingTagIds: wanted, locked } });
  }
  return events;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  return left.size === new Set(b).size && b.every((item) => left.has(item));
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export const transactionDecider: Decider<TransactionCommand, TransactionEvent, TransactionState> = {
  decide: decideTransaction,
  evolve: evolveTransaction,
  initialState: initialTransactionState,
};
