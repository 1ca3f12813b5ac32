import { unhandled } from '../../core/exhaustive.js';
import type { DomainEvent } from '../../core/events.js';

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
export type TransactionEdited = DomainEvent<'TransactionEdited', { transactionId: string; changes: FieldChange[] }>;
export type TransactionDeleted = DomainEvent<'TransactionDeleted', { transactionId: string; accountId: string }>;

/**
 * Tags put on (`TagApplied`) or taken off (`TagRemoved`) a transaction: `tagIds` the ones that
 * changed, `resultingTagIds` the whole set afterwards (sorted), `locked` whether the `tags` field
 * is the user's afterwards. Older streams carry tag changes as `TransactionEdited` of `tagIds`.
 */
export type TagApplied = DomainEvent<'TagApplied', { transactionId: string; tagIds: string[]; resultingTagIds: string[]; locked: boolean }>;
export type TagRemoved = DomainEvent<'TagRemoved', { transactionId: string; tagIds: string[]; resultingTagIds: string[]; locked: boolean }>;

export type TransactionEvent = TransactionCreated | TransactionEdited | TransactionDeleted | TagApplied | TagRemoved;

export interface TransactionState {
  readonly status: 'absent' | 'live' | 'deleted';
  readonly accountId: string | null;
  readonly source: 'manual' | 'bank_link';
  /** What the provider (or, for manual transactions, creation) said: what `null` restores. */
  readonly original: EditableValues | null;
  readonly current: EditableValues | null;
  readonly locked: ReadonlySet<EditableField>;
}

export const initialTransactionState = (): TransactionState => ({
  status: 'absent',
  accountId: null,
  source: 'manual',
  original: null,
  current: null,
  locked: new Set(),
});

export function evolveTransaction(state: TransactionState, event: TransactionEvent): TransactionState {
  switch (event.type) {
    case 'TransactionCreated': {
      const values = editableValuesOf(event.data);
      return { status: 'live', accountId: event.data.accountId, source: event.data.source, original: values, current: values, locked: new Set() };
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
      return { ...state, current, locked };
    }
    case 'TransactionDeleted':
      return { ...state, status: 'deleted' };
    case 'TagApplied':
    case 'TagRemoved': {
      if (!state.current) return state;
      const locked = new Set(state.locked);
      if (event.data.locked) locked.add('tagIds');
      else locked.delete('tagIds');
      return { ...state, current: { ...state.current, tagIds: event.data.resultingTagIds }, locked };
    }
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
