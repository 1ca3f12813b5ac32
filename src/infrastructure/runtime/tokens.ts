/** Nest injection tokens for the infrastructure the composition root builds. */
export const CONFIG = Symbol('AppConfig');
export const LOGGER = Symbol('Logger');
export const CLOCK = Symbol('Clock');
export const DATABASE = Symbol('Kysely<Database>');
export const EVENT_STORE = Symbol('EventStore');
export const JOBS = Symbol('JobRunner');
export const RUNTIME = Symbol('Runtime');
export const READ_YOUR_WRITES = Symbol('ReadYourWrites');
