export { detectRecurringStreams, listRecurringStreams } from './detect-recurring-streams.js';
export {
  EMPTY_RECURRING_INDEX,
  addTransactions,
  indexedTransaction,
  removeTransactions,
  type DetectedStream,
  type PayeeGroup,
  type RecurringIndex,
} from './recurring-index.state.js';
export { normalisePayeeName, payeeKeyOf } from './payee-key.normaliser.js';
export type {
  DetectionOptions,
  RecurringCounterparty,
  RecurringFrequency,
  RecurringStatus,
  RecurringStream,
  RecurringTransaction,
  StreamType,
} from './recurring-stream.types.js';
