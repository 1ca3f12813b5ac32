import type pg from 'pg';

// Each chunk's INSERT must end well inside the feed's old-transaction bound (decision 0008): the
// service reads while it seeds, and a longer transaction would be passed over.
const CHUNK = 10_000;

/**
 * Appends `count` TransactionCreated events straight into the event store (one new stream each,
 * exactly as the API would write them, each in one of `categoryIds`), so the service's projector
 * builds the read model from them and every listed transaction joins its category.
 */
export async function seedTransactionEvents(pool: pg.Pool, userId: string, accountId: string, categoryIds: readonly string[], count: number, onProgress: (done: number) => void): Promise<void> {
  for (let done = 0; done < count; done += CHUNK) {
    const size = Math.min(CHUNK, count - done);
    await pool.query(
      `INSERT INTO events (event_id, stream_id, stream_revision, type, data, metadata)
       SELECT id, 'transaction-' || id, 0, 'TransactionCreated',
              jsonb_build_object(
                'transactionId', id, 'accountId', $2::text, 'source', 'manual',
                'amount', trim_scale(round((-1 - random() * 250)::numeric, 2))::text,
                'date', to_char(date '2026-11-22' - (g % 730), 'YYYY-MM-DD'),
                'name', 'Merchant ' || (g % 997), 'merchantName', NULL, 'categoryId', ($5::text[])[1 + g % cardinality($5::text[])], 'notes', NULL,
                'pending', false, 'paymentChannel', 'online', 'location', NULL, 'tagIds', '[]'::jsonb, 'authorizedDate', NULL),
              jsonb_build_object(
                'userId', $1::text, 'actor', 'system', 'requestId', 'bench-seed', 'causationId', 'bench-seed',
                'correlationId', 'bench-seed', 'schemaVersion', 1,
                'occurredAt', to_char((now() - make_interval(secs => g)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         FROM (SELECT gen_random_uuid() AS id, g FROM generate_series($3::int + 1, $3::int + $4::int) AS g) AS seed`,
      [userId, accountId, done, size, categoryIds],
    );
    onProgress(done + size);
  }
}
