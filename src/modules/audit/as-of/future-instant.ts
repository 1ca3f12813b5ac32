import type { Clock } from '../../../core/clock.js';
import { invalid } from '../../../core/errors.js';

/** An as-of read answers for the past and the present: a later instant is a 422 at `["asOf"]`. */
export function refuseFutureInstant(asOf: Date, clock: Clock): void {
  const now = clock.now();
  if (asOf.getTime() > now.getTime()) throw invalid(['asOf'], `asOf must not be in the future (it is now ${now.toISOString()})`, 'too_big');
}
