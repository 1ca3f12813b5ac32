/** Time enters the application through a Clock so tests can hold it still. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function isoDate(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}
