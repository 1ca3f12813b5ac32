import { unhandled } from '../../core/exhaustive.js';
import type { DomainEvent } from '../../core/events.js';
import { editableValuesFromProvider, type ProviderValues, providerValuesOf, type TransactionImported, type TransactionRemoved, type TransactionReplaced } from './imported-transaction.js';
import type { SplitPart, TransactionSplit, TransactionSplitsCleared } from './splits/split.js';
import type { TransferCounterpart, TransferPaired, TransferUnpaired } from './transfers/transfer.js';

export const PAYMENT_CHANNELS = ['in store', 'online', 'other'] as const;
export type PaymentChannel = (typeof PAYMENT_CHANNELS)[number];

export interface TransactionLocation {
  address: string | null;
  city: string | null;
  country: string | null;
  postal_code: string | null;
  region: string | null;
  store_number: string | null;
  lat: number | null;
  lon: number | null;
}

/** Values a user can edit; `amount` is a decimal string, as money always is inside events. */
export interface EditableValues {
  name: string;
  merchantName: string | null;
  amount: string;
  date: string;
  categoryId: string | null;
  notes: string | null;
  paymentChannel: PaymentChannel | null;
  location: TransactionLocation | null;
  tagIds: string[];
}
export type EditableField = keyof EditableValues;

/** The spec's `lockedFields` vocabulary: what a provider sync must leave alone. */
export const LOCKED_FIELD_OF = {
  name: 'name',
  merchantName: 'merchantName',
  amount: 'amount',
  date: 'date',
  categoryId: 'category',
  notes: 'notes',
  paymentChannel: 'paymentChannel',
  location: 'location',
  tagIds: 'tags',
} as const satisfies Record<EditableField, string>;
export type LockedField = (typeof LOCKED_FIELD_OF)[EditableField];
export const EDITABLE_FIELDS = Object.keys(LOCKED_FIELD_OF) as EditableField[];

export type TransactionCreated = DomainEvent<
  'TransactionCreated',
  EditableValues & { transactionId: string; accountId: string; source: 'manual'; pending: boolean; authorizedDate: string | null }
>;

export interface FieldChange<Field extends EditableField = EditableField> {
  field: Field;
  oldValue: EditableValues[Field];
  newValue: EditableValues[Field];
  /** true: the user's value now wins over provider updates; false: restored to the provider's value. */
  locked: boolean;
}
/**
 * A sync's edit (actor system) carries `provider`: everything the provider says after it, which
 * is also what `null` restores; its `changes` name only the fields the user had not locked. An
 * edit carrying `carriedFromTransactionId` moves a pending transaction's user values onto its
 * posted one.
 */
export type TransactionEdited = DomainEvent<
  'TransactionEdited',
  { transactionId: string; changes: FieldChange[]; provider?: ProviderValues; carriedFromTransactionId?: string }
>;
export type TransactionDeleted = DomainEvent<'TransactionDeleted', { transactionId: string; accountId: string }>;

/** Whether an edit changes one of `fields`, or carries the provider's values (a sync's edit, which may post a pending one). */
export function editTouches(event: TransactionEdited, fields: readonly EditableField[]): boolean {
  return event.data.provider !== undefined || event.data.changes.some((change) => fields.includes(change.field));
}

/**
 * Tags put on (`TagApplied`) or taken off (`TagRemoved`) a transaction: `tagIds` the ones that
 * changed, `resultingTagIds` the whole set afterwards (sorted), `locked` whether the `tags` field
 * is the user's afterwards. Older streams carry tag changes as `TransactionEdited` of `tagIds`.
 */
export type TagApplied = DomainEvent<'TagApplied', { transactionId: string; tagIds: string[]; resultingTagIds: string[]; locked: boolean }>;
export type TagRemoved = DomainEvent<'TagRemoved', { transactionId: string; tagIds: string[]; resultingTagIds: string[]; locked: boolean }>;

export type TransactionEvent =
  | TransactionCreated
  | TransactionImported
  | TransactionEdited
  | TransactionDeleted
  | TransactionRemoved
  | TransactionReplaced
  | TagApplied
  | TagRemoved
  | TransferPaired
  | TransferUnpaired
  | TransactionSplit
  | TransactionSplitsCleared;

export interface TransactionState {
  /** `removed`: the provider dropped it; `replaced`: its posted transaction took its place. */
  readonly status: 'absent' | 'live' | 'deleted' | 'removed' | 'replaced';
  readonly accountId: string | null;
  readonly source: 'manual' | 'bank_link';
  /** For an imported transaction, what the provider said last. */
  readonly provider: ProviderValues | null;
  readonly replacedBy: string | null;
  /** What the provider (or, for manual transactions, creation) said: what `null` restores. */
  readonly original: EditableValues | null;
  readonly current: EditableValues | null;
  readonly locked: ReadonlySet<EditableField>;
  /** The other side when it is one side of a transfer between the user's accounts (decision 0043). */
  readonly transfer: TransferCounterpart | null;
  /** Transactions the user unpaired this one from: never paired with it automatically again. */
  readonly neverPairWith: ReadonlySet<string>;
  /** Its parts when split, each with its own category; empty when not. */
  readonly splits: readonly SplitPart[];
}

export const initialTransactionState = (): TransactionState => ({
  status: 'absent',
  accountId: null,
  source: 'manual',
  provider: null,
  replacedBy: null,
  original: null,
  current: null,
  locked: new Set(),
  transfer: null,
  neverPairWith: new Set(),
  splits: [],
});

export function evolveTransaction(state: TransactionState, event: TransactionEvent): TransactionState {
  switch (event.type) {
    case 'TransactionCreated': {
      const values = editableValuesOf(event.data);
      return { ...initialTransactionState(), status: 'live', accountId: event.data.accountId, source: event.data.source, original: values, current: values };
    }
    case 'TransactionImported': {
      const provider = providerValuesOf(event.data);
      const values = editableValuesFromProvider(provider);
      return { ...initialTransactionState(), status: 'live', accountId: event.data.accountId, source: 'bank_link', provider, original: values, current: values };
    }
    case 'TransactionEdited': {
      if (!state.current) return state;
      const current: EditableValues = { ...state.current };
      const locked = new Set(state.locked);
      for (const change of event.data.changes) {
        (current as unknown as Record<string, unknown>)[change.field] = change.newValue;
        if (change.locked) locked.add(change.field);
        else locked.delete(change.field);
      }
      const provider = event.data.provider ?? state.provider;
      const original = event.data.provider && state.original ? { ...state.original, ...editableValuesFromProvider(event.data.provider), notes: state.original.notes, tagIds: state.original.tagIds } : state.original;
      return { ...state, current, locked, provider, original };
    }
    case 'TransactionDeleted':
      return { ...state, status: 'deleted' };
    case 'TransactionRemoved':
      return { ...state, status: state.status === 'replaced' ? 'replaced' : 'removed' };
    case 'TransactionReplaced':
      return { ...state, status: 'replaced', replacedBy: event.data.byTransactionId };
    case 'TagApplied':
    case 'TagRemoved': {
      if (!state.current) return state;
      const locked = new Set(state.locked);
      if (event.data.locked) locked.add('tagIds');
      else locked.delete('tagIds');
      return { ...state, current: { ...state.current, tagIds: event.data.resultingTagIds }, locked };
    }
    case 'TransferPaired':
      return { ...state, transfer: event.data.counterpart };
    case 'TransferUnpaired':
      return {
        ...state,
        transfer: null,
        neverPairWith: event.data.reason === 'user' ? new Set([...state.neverPairWith, event.data.counterpart.transactionId]) : state.neverPairWith,
      };
    case 'TransactionSplit':
      return { ...state, splits: event.data.splits };
    case 'TransactionSplitsCleared':
      return { ...state, splits: [] };
    default: {
      unhandled(event);
      return state;
    }
  }
}

export function editableValuesOf(data: EditableValues): EditableValues {
  return {
    name: data.name,
    merchantName: data.merchantName,
    amount: data.amount,
    date: data.date,
    categoryId: data.categoryId,
    notes: data.notes,
    paymentChannel: data.paymentChannel,
    location: data.location,
    tagIds: data.tagIds,
  };
}

export const TRANSACTION_STREAM_PREFIX = 'transaction-';

export function transactionStreamId(transactionId: string): string {
  return `${TRANSACTION_STREAM_PREFIX}${transactionId}`;
}
