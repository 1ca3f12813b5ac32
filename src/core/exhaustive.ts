/**
 * Compile time: every member of a union was handled. Run time: a value from the future (an event
 * type this build does not know, read from the store) is reported to the caller, not thrown.
 */
export function unhandled(_value: never): void {}
