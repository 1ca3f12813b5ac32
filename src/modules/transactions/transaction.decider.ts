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

/** A sparse edit: a present value writes and locks the field, `null` restores and unlocks it. */
export type TransactionPatch = { [Field in EditableField]?: EditableValues[Field] | null };

export type TransactionCommand =
  | { type: 'CreateTransaction'; data: TransactionCreated['data'] }
  | { type: 'EditTransaction'; transactionId: string; patch: TransactionPatch }
  | { type: 'DeleteTransaction'; transactionId: string };

export function decideTransaction(command: TransactionCommand, state: TransactionState): TransactionEvent[] {
  switch (command.type) {
    case 'CreateTransaction':
      if (state.status !== 'absent') throw new DomainRuleError('TRANSACTION_EXISTS', 'A transaction with this id already exists.', 409);
      return [{ type: 'TransactionCreated', data: command.data }];
    case 'EditTransaction': {
      if (state.status !== 'live' || !state.current || !state.original) throw new NotFoundError('Transaction');
      const changes = EDITABLE_FIELDS.flatMap((field) => changeOf(field, command.patch, state));
      return changes.length === 0 ? [] : [{ type: 'TransactionEdited', data: { transactionId: command.transactionId, changes } }];
    }
    case 'DeleteTransaction':
      // Idempotent, and provider-managed transactions are the provider's to remove.
      if (state.status !== 'live' || state.source !== 'manual' || !state.accountId) return [];
      return [{ type: 'TransactionDeleted', data: { transactionId: command.transactionId, accountId: state.accountId } }];
    default: {
      unhandled(command);
      throw new Error(`Unknown transaction command ${(command as { type: string }).type}`);
    }
  }
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

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export const transactionDecider: Decider<TransactionCommand, TransactionEvent, TransactionState> = {
  decide: decideTransaction,
  evolve: evolveTransaction,
  initialState: initialTransactionState,
};
