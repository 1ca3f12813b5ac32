import { UpcasterChain } from './core/upcasting.js';

/**
 * Every upcaster of the service. When an event type's data changes shape, add the step from its
 * current version here: new events of that type are then written one version higher, and stored
 * ones are upcast when read. The README's event catalogue names the change.
 */
export const EVENT_SCHEMAS = new UpcasterChain([]);
