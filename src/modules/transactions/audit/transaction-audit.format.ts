import type { AuditedFieldChange, TransactionAudit } from './transaction-audit.report.js';

export const AGREES = 'Read model agrees with the event stream.';

/** The audit for a person: every event with who, when and why, each field before → after, then the verdict. */
export function formatAuditText(audit: TransactionAudit): string {
  const lines = [
    `Transaction ${audit.transactionId} of user ${audit.userId}: stream ${audit.streamId}, ${audit.events.length} event${audit.events.length === 1 ? '' : 's'}`,
    `Now, by the stream: ${audit.status}${audit.leftWithAccount ? ' (its account has since been deleted or disconnected: it left the list with it)' : ''}`,
    '',
  ];
  for (const event of audit.events) {
    lines.push(`#${event.revision}  ${event.occurredAt}  ${event.type}  (position ${event.position})`);
    lines.push(`    actor ${event.actor} · request ${event.requestId} · correlation ${event.correlationId} · causation ${event.causationId}`);
    if (event.changes.length === 0) lines.push('    (no field changed)');
    const width = Math.max(0, ...event.changes.map((change) => change.field.length));
    for (const change of event.changes) lines.push(`    ${change.field.padEnd(width)}  ${side(change, 'before')} → ${side(change, 'after')}`);
  }
  lines.push('');
  if (audit.agrees) lines.push(AGREES);
  else {
    lines.push(`Read model DISAGREES with the event stream (${audit.disagreements.length}):`);
    for (const disagreement of audit.disagreements) lines.push(`  ${disagreement.where}: stream ${disagreement.stream}, read model ${disagreement.readModel}`);
  }
  return lines.join('\n');
}

/** The same content as one JSON document, for machines. */
export function formatAuditJson(audit: TransactionAudit): string {
  return JSON.stringify({ ...audit, verdict: audit.agrees ? AGREES : 'Read model disagrees with the event stream.' }, null, 2);
}

function side(change: AuditedFieldChange, which: 'before' | 'after'): string {
  return which in change ? JSON.stringify(change[which]) : '—';
}
