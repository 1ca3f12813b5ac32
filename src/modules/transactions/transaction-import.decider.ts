import type { EditableField, EditableValues, FieldChange, TransactionEvent, TransactionState } from './transaction.js';
import { afterAmountChange } from './amount-change.js';
import { PROVIDER_EDITABLE_FIELDS, type ProviderValues, providerValuesOf, type TransactionImported } from './imported-transaction.js';

/** What a posted transaction takes over from the pending one it replaces: the user's values. */
export interface CarryOver {
  readonly fromTransactionId: string;
  /** The fields the user locked on the pending transaction (notes among them), tags apart. */
  readonly values: Partial<Omit<EditableValues, 'tagIds'>>;
  readonly tagIds: readonly string[];
  readonly tagsLocked: boolean;
}

export type TransactionImportCommand =
  /** `carryOver` is read from the pending transaction's stream by the caller (see `carryOverOf`). */
  | { type: 'ImportTransaction'; data: TransactionImported['data']; carryOver: CarryOver | null }
  | { type: 'UpdateFromProvider'; transactionId: string; provider: ProviderValues }
  | { type: 'RemoveImportedTransaction'; transactionId: string }
  | { type: 'RetireReplacedTransaction'; transactionId: string; byTransactionId: string };

/**
 * A sync's decisions. Each one is idempotent, so a page applied again after a crash appends
 * nothing: the import of an existing stream, the update that is already there, the removal or
 * retirement already recorded.
 */
export function decideImport(command: TransactionImportCommand, state: TransactionState): TransactionEvent[] {
  switch (command.type) {
    case 'ImportTransaction':
      if (state.status !== 'absent') return [];
      return [{ type: 'TransactionImported', data: command.data }, ...carriedOver(command.data, command.carryOver)];
    case 'UpdateFromProvider':
      return providerUpdate(command.transactionId, command.provider, state);
    case 'RemoveImportedTransaction':
      if (state.status !== 'live' || state.source !== 'bank_link' || !state.accountId) return [];
      return [{ type: 'TransactionRemoved', data: { transactionId: command.transactionId, accountId: state.accountId } }];
    case 'RetireReplacedTransaction':
      // A pending one the provider removed before its posted one arrived still gets the pointer.
      if ((state.status !== 'live' && state.status !== 'removed') || state.source !== 'bank_link' || !state.accountId) return [];
      return [{ type: 'TransactionReplaced', data: { transactionId: command.transactionId, accountId: state.accountId, byTransactionId: command.byTransactionId } }];
  }
}

/** The user's values on a pending transaction, or null when there is nothing of theirs to carry. */
export function carryOverOf(pendingTransactionId: string, pending: TransactionState): CarryOver | null {
  if (pending.status === 'absent' || !pending.current) return null;
  const current = pending.current;
  const values: Partial<Record<EditableField, unknown>> = {};
  for (const field of pending.locked) if (field !== 'tagIds') values[field] = current[field];
  if (current.notes !== null) values.notes = current.notes;
  const tagsLocked = pending.locked.has('tagIds');
  if (Object.keys(values).length === 0 && current.tagIds.length === 0 && !tagsLocked) return null;
  return { fromTransactionId: pendingTransactionId, values: values as CarryOver['values'], tagIds: [...current.tagIds].sort(), tagsLocked };
}

function carriedOver(data: TransactionImported['data'], carryOver: CarryOver | null): TransactionEvent[] {
  if (!carryOver) return [];
  const provider: Record<string, unknown> = { ...data, notes: null };
  const changes = (Object.entries(carryOver.values) as [EditableField, EditableValues[EditableField]][]).map(
    ([field, newValue]): FieldChange => ({ field, oldValue: provider[field] as EditableValues[EditableField], newValue, locked: true }),
  );
  const events: TransactionEvent[] = [];
  if (changes.length > 0) events.push({ type: 'TransactionEdited', data: { transactionId: data.transactionId, changes, carriedFromTransactionId: carryOver.fromTransactionId } });
  if (carryOver.tagIds.length > 0 || carryOver.tagsLocked) {
    events.push({ type: 'TagApplied', data: { transactionId: data.transactionId, tagIds: [...carryOver.tagIds], resultingTagIds: [...carryOver.tagIds], locked: carryOver.tagsLocked } });
  }
  return events;
}

function providerUpdate(transactionId: string, provider: ProviderValues, state: TransactionState): TransactionEvent[] {
  // A modification of a transaction this service never imported, or one that has left, changes nothing.
  if (state.status !== 'live' || state.source !== 'bank_link' || !state.current) return [];
  if (state.provider && sameValue(providerValuesOf(state.provider), providerValuesOf(provider))) return [];
  const current = state.current;
  const changes: FieldChange[] = PROVIDER_EDITABLE_FIELDS.filter((field) => !state.locked.has(field) && !sameValue(current[field], provider[field])).map((field) => ({
    field,
    oldValue: current[field],
    newValue: provider[field],
    locked: false,
  }));
  return [{ type: 'TransactionEdited', data: { transactionId, changes, provider: providerValuesOf(provider) } }, ...afterAmountChange(transactionId, changes, state)];
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
