import type { NamedFieldChange, NamedTransactionAudit } from './transaction-audit.names.js';

export const AGREES = 'Read model agrees with the event stream.';

/** The audit for a person: every event with who, when and why, each field before → after, then the verdict. */
export function formatAuditText(audit: NamedTransactionAudit): string {
  const lines = [
    `Transaction ${audit.transactionId} of user ${audit.userId}${userLabel(audit.user)}: stream ${audit.streamId}, ${audit.events.length} event${audit.events.length === 1 ? '' : 's'}`,
    `Now, by the stream: ${audit.status}${audit.leftWithAccount ? ' (its account has since been deleted or disconnected: it left the list with it)' : ''}`,
    '',
  ];
  for (const event of audit.events) {
    lines.push(`#${event.revision}  ${event.occurredAt}  ${event.type}  (position ${event.position})`);
    lines.push(`    actor ${event.actor} · request ${event.requestId} · correlation ${event.correlationId} · causation ${event.causationId}${event.idempotencyKey === undefined ? '' : ` · idempotency key ${JSON.stringify(event.idempotencyKey)}`}`);
    if (event.byTransactionId) lines.push(`    replaced by transaction ${event.byTransactionId} (its posted transaction)`);
    if (event.replacesTransactionId) lines.push(`    replaces pending transaction ${event.replacesTransactionId}`);
    if (event.carriedFromTransactionId) lines.push(`    carries over the user's values of pending transaction ${event.carriedFromTransactionId}`);
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
export function formatAuditJson(audit: NamedTransactionAudit): string {
  return JSON.stringify({ ...audit, verdict: audit.agrees ? AGREES : 'Read model disagrees with the event stream.' }, null, 2);
}

/** ` (email, name)`: the user as people know them, beside the id. */
function userLabel(user: NamedTransactionAudit['user']): string {
  const known = [user.email, user.name].filter((part): part is string => part !== null && part !== '');
  return known.length === 0 ? '' : ` (${known.join(', ')})`;
}

/** A value as JSON, with the name of each category or tag id beside it: `"c0ffee…" (Coffee Shops)`, `["a1…" (Work)]`. */
function side(change: NamedFieldChange, which: 'before' | 'after'): string {
  if (!(which in change)) return '—';
  const value = change[which];
  const names = which === 'before' ? change.beforeName : change.afterName;
  if (Array.isArray(value) && Array.isArray(names)) return `[${value.map((id, index) => `${JSON.stringify(id)}${label(names[index] ?? null)}`).join(', ')}]`;
  if (typeof value === 'string' && (typeof names === 'string' || names === null)) return `${JSON.stringify(value)}${label(names)}`;
  return JSON.stringify(value);
}

const label = (name: string | null) => (name === null ? ' (unknown)' : ` (${name})`);
