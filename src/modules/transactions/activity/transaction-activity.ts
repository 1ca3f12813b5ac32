import type { Actor, RecordedEvent } from '../../../core/events.js';
import type { TransactionImported } from '../imported-transaction.js';
import {
  EDITABLE_FIELDS,
  type EditableField,
  editableValuesOf,
  evolveTransaction,
  type FieldChange,
  initialTransactionState,
  LOCKED_FIELD_OF,
  type LockedField,
  type TagApplied,
  type TagRemoved,
  type TransactionCreated,
  type TransactionEdited,
  type TransactionEvent,
} from '../transaction.js';
import { editableValuesFromProvider, providerValuesOf } from '../imported-transaction.js';
import type { SplitPart } from '../splits/split.js';

export const ACTIVITY_KINDS = ['created', 'edited', 'deleted'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/**
 * One line of a transaction's field-change history, values as the API shows them. `created`
 * has no `oldValue`, `deleted` no `newValue`; `edited` has both (either may be null).
 */
export interface ActivityEntry {
  readonly id: string;
  readonly userId: string;
  readonly transactionId: string;
  /** Where it sits in the history: the event's stream revision, then its place among the event's fields. */
  readonly revision: number;
  readonly ordinal: number;
  readonly kind: ActivityKind;
  readonly field: ActivityField;
  readonly oldValue?: unknown;
  readonly newValue?: unknown;
  readonly actor: Actor;
  readonly createdAt: string;
  readonly requestId: string;
  readonly correlationId: string;
  /** The rule whose change it is (actor `system`); null for any other. */
  readonly ruleId: string | null;
}

/** The fields a history names: the editable ones (the spec's lockedFields names), the transfer and the splits (decision 0043). */
export const ACTIVITY_FIELDS = [...Object.values(LOCKED_FIELD_OF), 'transfer', 'splits'] as const;
export type ActivityField = LockedField | 'transfer' | 'splits';

/** The events that start a transaction's history, change it, and end it (the transaction leaves the list). */
export const CREATION_EVENT_TYPES = ['TransactionCreated', 'TransactionImported'] as const;
export const EDIT_EVENT_TYPES = ['TransactionEdited', 'TagApplied', 'TagRemoved', 'TransferPaired', 'TransferUnpaired', 'TransactionSplit', 'TransactionSplitsCleared'] as const;
export const DEPARTURE_EVENT_TYPES = ['TransactionDeleted', 'TransactionRemoved', 'TransactionReplaced'] as const;
export const ACTIVITY_EVENT_TYPES: readonly string[] = [...CREATION_EVENT_TYPES, ...EDIT_EVENT_TYPES, ...DEPARTURE_EVENT_TYPES];

/** Values the history records: the API's field names and representation (see toTransactionResponse). */
export type ApiValues = ReadonlyMap<LockedField, unknown>;

/** Amounts are decimal strings inside events and numbers in the API. */
export function asApiValue(field: EditableField, value: unknown): unknown {
  return field === 'amount' && typeof value === 'string' ? Number(value) : value;
}

/** Whether a field holds something worth a creation or deletion entry: not null, not an empty tag set. */
export function hasValue(value: unknown): boolean {
  return value !== null && value !== undefined && !(Array.isArray(value) && value.length === 0);
}

/** Every field that has a value, in the API's representation, in the order fields are listed. */
export function apiValuesOf(values: Record<EditableField, unknown>): ApiValues {
  return new Map(EDITABLE_FIELDS.filter((field) => hasValue(values[field])).map((field) => [LOCKED_FIELD_OF[field], asApiValue(field, values[field])]));
}

export function isCreation(type: string): boolean {
  return (CREATION_EVENT_TYPES as readonly string[]).includes(type);
}

export function isDeparture(type: string): boolean {
  return (DEPARTURE_EVENT_TYPES as readonly string[]).includes(type);
}

/** Creation: one `created` entry per field with a value (an import's values are the provider's). */
export function creationEntries(recorded: RecordedEvent): ActivityEntry[] {
  const values =
    recorded.type === 'TransactionImported'
      ? editableValuesFromProvider(providerValuesOf((recorded as RecordedEvent<TransactionImported>).data))
      : editableValuesOf((recorded as RecordedEvent<TransactionCreated>).data);
  return [...apiValuesOf(values)].map(([field, value], ordinal) => entryOf(recorded, ordinal, 'created', field, { newValue: value }));
}

/** An edit: one `edited` entry per field whose value changed (a write that only locks a field shows nothing). */
export function editEntries(recorded: RecordedEvent): ActivityEntry[] {
  const relation = relationChangeOf(recorded);
  if (relation) return [entryOf(recorded, 0, 'edited', relation.field, relation)];
  return fieldChangesOf(recorded)
    .filter((change) => JSON.stringify(change.oldValue) !== JSON.stringify(change.newValue))
    .map((change, ordinal) => entryOf(recorded, ordinal, 'edited', LOCKED_FIELD_OF[change.field], { oldValue: asApiValue(change.field, change.oldValue), newValue: asApiValue(change.field, change.newValue) }));
}

/** Deletion, removal by the provider or retirement for a posted one: one `deleted` entry per field that had a value then. */
export function departureEntries(recorded: RecordedEvent, lastValues: ApiValues): ActivityEntry[] {
  return [...lastValues].filter(([, value]) => hasValue(value)).map(([field, value], ordinal) => entryOf(recorded, ordinal, 'deleted', field, { oldValue: value }));
}

/**
 * The history a transaction's own stream tells, derived from the stream alone: what the activity
 * read model should hold. A departure takes the values from the folded state before it, and only
 * the first departure counts (a pending transaction the provider removed and then retired leaves
 * once).
 */
export function activityOfStream(history: readonly RecordedEvent[]): ActivityEntry[] {
  let state = initialTransactionState();
  const entries: ActivityEntry[] = [];
  for (const recorded of history) {
    if (isCreation(recorded.type)) entries.push(...creationEntries(recorded));
    else if (isDeparture(recorded.type)) {
      if (state.status === 'live' && state.current) entries.push(...departureEntries(recorded, apiValuesOf(state.current)));
    } else if ((EDIT_EVENT_TYPES as readonly string[]).includes(recorded.type)) entries.push(...editEntries(recorded));
    state = evolveTransaction(state, { type: recorded.type, data: recorded.data } as TransactionEvent);
  }
  return entries;
}

/** A transfer paired or unpaired, splits set or cleared: one change of `transfer` or `splits`, values as the API shows them. */
function relationChangeOf(recorded: RecordedEvent): { field: 'transfer' | 'splits'; oldValue: unknown; newValue: unknown } | null {
  const event = { type: recorded.type, data: recorded.data } as TransactionEvent;
  switch (event.type) {
    case 'TransferPaired':
      return { field: 'transfer', oldValue: null, newValue: event.data.counterpart };
    case 'TransferUnpaired':
      return { field: 'transfer', oldValue: event.data.counterpart, newValue: null };
    case 'TransactionSplit':
      return { field: 'splits', oldValue: apiSplitsOf(event.data.previousSplits), newValue: apiSplitsOf(event.data.splits) };
    case 'TransactionSplitsCleared':
      return { field: 'splits', oldValue: apiSplitsOf(event.data.previousSplits), newValue: [] };
    default:
      return null;
  }
}

function apiSplitsOf(parts: readonly SplitPart[]): unknown[] {
  return parts.map((part) => ({ id: part.splitId, amount: Number(part.amount), categoryId: part.categoryId, notes: part.notes }));
}

/** A tag change reads as a change of the `tags` field: the set before, the set after. */
function fieldChangesOf(recorded: RecordedEvent): FieldChange[] {
  if (recorded.type === 'TransactionEdited') return (recorded as RecordedEvent<TransactionEdited>).data.changes;
  const { data } = recorded as RecordedEvent<TagApplied | TagRemoved>;
  const before = recorded.type === 'TagApplied' ? data.resultingTagIds.filter((tagId) => !data.tagIds.includes(tagId)) : [...data.resultingTagIds, ...data.tagIds].sort();
  return [{ field: 'tagIds', oldValue: before, newValue: data.resultingTagIds, locked: data.locked }];
}

function entryOf(recorded: RecordedEvent, ordinal: number, kind: ActivityKind, field: ActivityField, values: { oldValue?: unknown; newValue?: unknown }): ActivityEntry {
  const { metadata } = recorded;
  return {
    id: `${recorded.id}:${field}`,
    userId: metadata.userId,
    transactionId: (recorded.data as { transactionId: string }).transactionId,
    revision: Number(recorded.revision),
    ordinal,
    kind,
    field,
    ...values,
    actor: metadata.actor,
    createdAt: metadata.occurredAt,
    requestId: metadata.requestId,
    correlationId: metadata.correlationId,
    ruleId: metadata.ruleId ?? null,
  };
}
