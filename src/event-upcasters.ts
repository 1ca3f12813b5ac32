import type { Upcaster } from './core/upcasting.js';

/**
 * Every upcaster of the service. When an event's data changes shape, bump SCHEMA_VERSION for new
 * events and add the step from the old version here; the README's event catalogue names the change.
 */
export const EVENT_UPCASTERS: readonly Upcaster[] = [];
