import type { Clock } from '../../../core/clock.js';
import { NotFoundError } from '../../../core/errors.js';
import { isUuid } from '../../../core/ids.js';
import { INSTANT_FORMAT, parseInstant } from '../../../core/instant.js';
import type { CommandOutput } from '../../../infrastructure/projections/projection-commands.js';
import { type AsOfDependencies, transactionAsOf } from './transaction-as-of.query.js';

/**
 * `ledgerline audit transaction <id> --as-of <timestamp>`: the transaction as it stood at that
 * instant, the JSON `GET /v1/transactions/{id}?asOf=` answers its owner. Exit 0 shown; 1 it did not
 * exist then (or is unknown); 2 usage (not an id, not a timestamp, or one in the future).
 */
export async function transactionAsOfCommand(dependencies: AsOfDependencies, clock: Clock, transactionId: string | undefined, asOfText: string, out: CommandOutput): Promise<number> {
  const asOf = parseInstant(asOfText);
  if (!transactionId || !isUuid(transactionId) || asOf === null) {
    out.error(`audit transaction --as-of takes a transaction id (a UUID) and ${INSTANT_FORMAT}: ledgerline audit transaction <id> --as-of <timestamp>`);
    return 2;
  }
  if (asOf.getTime() > clock.now().getTime()) {
    out.error(`--as-of ${asOfText} is in the future: nothing is known of it yet.`);
    return 2;
  }
  try {
    out.log(JSON.stringify(await transactionAsOf(dependencies, null, transactionId.toLowerCase(), asOf), null, 2));
    return 0;
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    out.error(`No transaction ${transactionId.toLowerCase()} as of ${asOf.toISOString()}: it did not exist then (or was deleted by then).`);
    return 1;
  }
}
