import { isUuid } from '../../../core/ids.js';
import type { CommandOutput } from '../../../infrastructure/projections/projection-commands.js';
import { auditTransactionAgainstReadModels, type TransactionAuditDependencies } from './transaction-audit.js';
import { formatAuditJson, formatAuditText } from './transaction-audit.format.js';

/** Exit codes: 0 the read models agree with the stream, 1 they do not (or lag, or no such transaction), 2 bad usage. */
export async function auditTransactionCommand(dependencies: TransactionAuditDependencies, transactionId: string | undefined, options: { json: boolean; waitMs?: number }, out: CommandOutput): Promise<number> {
  if (!transactionId || !isUuid(transactionId)) {
    out.error(`audit transaction takes a transaction id (a UUID)${transactionId ? `, not "${transactionId}"` : ''}: ledgerline audit transaction <id> [--json]`);
    return 2;
  }
  const outcome = await auditTransactionAgainstReadModels(dependencies, transactionId.toLowerCase(), options.waitMs);
  switch (outcome.kind) {
    case 'unknown': {
      const message = `No transaction ${outcome.transactionId}: its stream has no events.`;
      if (options.json) out.log(JSON.stringify({ transactionId: outcome.transactionId, error: 'unknown transaction', message }, null, 2));
      else out.error(message);
      return 1;
    }
    case 'lagging': {
      const behind = outcome.lagging.map((projection) => `${projection.name} v${projection.version} at ${projection.position}`).join(', ');
      const message = `Cannot compare yet: the read model lags behind the stream (needs position ${outcome.streamPosition}; ${behind}). Nothing was compared; try again, or see \`ledgerline projections status\`.`;
      if (options.json) out.log(JSON.stringify({ transactionId: outcome.transactionId, error: 'read model lags', message, streamPosition: outcome.streamPosition, lagging: outcome.lagging }, null, 2));
      else out.error(message);
      return 1;
    }
    case 'audited':
      out.log(options.json ? formatAuditJson(outcome.audit) : formatAuditText(outcome.audit));
      return outcome.audit.agrees ? 0 : 1;
  }
}
