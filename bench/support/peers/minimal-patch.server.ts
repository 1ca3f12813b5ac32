import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { connectDatabase } from '../../../src/infrastructure/database/database.js';
import { readModelSearchPath } from '../../../src/infrastructure/projections/projection.js';
import { PROJECTIONS } from '../../../projections/index.js';

/**
 * The least any design of PATCH /v1/transactions/{id} can cost here, over HTTP: Node's own http
 * server, no framework, no authentication, no validation, no projection daemon; per request one
 * statement in one round trip that appends the event at the expected revision, updates the
 * transaction's row and inserts its activity entry (one transaction, as item 1 of issue 23 asks),
 * and answers the row as PostgreSQL serialised it. The revision comes from an in-process cache.
 * GET /hello answers a constant: HTTP and the load generator alone.
 *
 * Environment: PORT, DATABASE_URL (a Ledgerline database with its read models built), POOL_SIZE, USER_ID.
 */
const database = connectDatabase(String(process.env.DATABASE_URL), { max: Number(process.env.POOL_SIZE ?? 30), searchPath: readModelSearchPath(PROJECTIONS) });
const userId = String(process.env.USER_ID);
const revisions = new Map<string, string>();

const PATCH = `
  WITH appended AS (
    INSERT INTO events (event_id, stream_id, stream_revision, type, data, metadata)
    SELECT $1::uuid, 'transaction-' || $2, $3::bigint + 1, 'TransactionEdited', $4::jsonb, $5::jsonb
     WHERE EXISTS (SELECT 1 FROM events WHERE stream_id = 'transaction-' || $2 AND stream_revision = $3::bigint)
    RETURNING stream_revision, (metadata->>'occurredAt')::timestamptz AS at
  ), updated AS (
    UPDATE transactions t SET notes = $6, updated_at = a.at, revision = a.stream_revision
      FROM appended a WHERE t.id = $2::uuid AND t.user_id = $7::uuid
    RETURNING t.*
  ), activity AS (
    INSERT INTO transaction_activity (id, user_id, transaction_id, revision, ordinal, kind, actor, created_at, field, old_value, new_value, request_id, correlation_id)
    SELECT $1 || ':notes', $7::uuid, $2::uuid, stream_revision, 0, 'edited', 'user', at, 'notes', NULL, jsonb_build_object('v', $6::text), $1, $1 FROM appended
  )
  SELECT row_to_json(u)::text AS body, u.revision::text AS revision FROM updated u`;

async function patch(id: string, notes: string): Promise<string | null> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    let revision = revisions.get(id);
    if (revision === undefined || attempt > 0) {
      const { rows } = await database.pool.query<{ revision: string | null }>('SELECT max(stream_revision)::text AS revision FROM events WHERE stream_id = $1', [`transaction-${id}`]);
      if (rows[0].revision === null) return null;
      revision = rows[0].revision;
    }
    const eventId = randomUUID();
    const occurredAt = new Date().toISOString();
    const data = JSON.stringify({ transactionId: id, changes: [{ field: 'notes', locked: true, newValue: notes, oldValue: null }] });
    const metadata = JSON.stringify({ userId, actor: 'user', requestId: eventId, causationId: eventId, correlationId: eventId, occurredAt, schemaVersion: 1 });
    const { rows } = await database.pool.query<{ body: string; revision: string }>({ name: 'floor-patch', text: PATCH, values: [eventId, id, revision, data, metadata, notes, userId] });
    if (rows.length === 1) {
      revisions.set(id, rows[0].revision);
      return rows[0].body;
    }
  }
  return null;
}

const server = http.createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/hello') {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"message":"hello","ok":true}');
    return;
  }
  const id = /^\/v1\/transactions\/([0-9a-f-]{36})$/.exec(request.url ?? '')?.[1];
  if (request.method !== 'PATCH' || !id) {
    response.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const { notes } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { notes: string };
    patch(id, notes).then(
      (body) => (body === null ? response.writeHead(404).end() : response.writeHead(200, { 'content-type': 'application/json' }).end(body)),
      (error: unknown) => response.writeHead(500).end(String(error)),
    );
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => void database.close().then(() => process.exit(0))));
