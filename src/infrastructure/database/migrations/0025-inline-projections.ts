import { type Kysely, sql } from 'kysely';

/**
 * Inline projections (decision 0033). `applied_inline` names the read-model versions
 * (`name@version`) an event was projected into by the transaction that appended it; the daemon
 * leaves those out. `ledgerline_append_after` is the check an inline append makes in the same
 * statement as its insert: the stream's previous event exists (else the cached state it was
 * decided on is stale), and every read model it projects inline already shows that previous event
 * — applied inline too, or passed by the daemon — so that no stream is ever projected out of order
 * (an event written by another release, or before a version went live, is the daemon's to apply
 * first). `ledgerline_require` turns a false guard into an error that ends the transaction.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE events ADD COLUMN applied_inline text[]`.execute(db);
  await sql`
    CREATE FUNCTION ledgerline_append_after(p_stream text, p_revision bigint, p_inline text[]) RETURNS boolean
    LANGUAGE plpgsql STABLE AS $$
    DECLARE
      previous record;
    BEGIN
      SELECT e.applied_inline, e.transaction_id, e.global_position INTO previous
        FROM events e WHERE e.stream_id = p_stream AND e.stream_revision = p_revision;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'stream % has no revision %', p_stream, p_revision USING ERRCODE = 'LL409';
      END IF;
      IF EXISTS (
        SELECT 1 FROM unnest(p_inline) AS wanted(key)
         WHERE NOT (wanted.key = ANY (coalesce(previous.applied_inline, '{}')))
           AND NOT EXISTS (
             SELECT 1 FROM projection_versions v
              WHERE v.name || '@' || v.version = wanted.key
                AND (v.position_commit, v.position_prepare) >= (previous.transaction_id::text::numeric, previous.global_position::numeric))) THEN
        RAISE EXCEPTION 'stream % is not yet projected up to revision %', p_stream, p_revision USING ERRCODE = 'LL425';
      END IF;
      RETURN true;
    END $$`.execute(db);
  await sql`
    CREATE FUNCTION ledgerline_require(p_holds boolean) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE AS $$
    BEGIN
      IF p_holds IS NOT TRUE THEN
        RAISE EXCEPTION 'a condition of the write does not hold' USING ERRCODE = 'LL412';
      END IF;
      RETURN true;
    END $$`.execute(db);
}
