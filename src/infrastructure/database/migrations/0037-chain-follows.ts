import { type Kysely, sql } from 'kysely';

/**
 * The check of an inline append whose links the service worked out (decision 0044): the checks of
 * `ledgerline_append_after` (0025), then that the stream's event at the expected revision has the
 * hash the links follow — else an error (LL428) ends the transaction before it commits the inline
 * read models' writes. The hash the service knew can only be wrong if the event was given one
 * since (`ledgerline audit chain`) or the row was changed: it reads the stream's head and tries again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION ledgerline_chain_follows(p_stream text, p_revision bigint, p_inline text[], p_hash bytea) RETURNS boolean
    LANGUAGE plpgsql STABLE AS $$
    BEGIN
      PERFORM ledgerline_append_after(p_stream, p_revision, p_inline);
      IF (SELECT e.hash FROM events e WHERE e.stream_id = p_stream AND e.stream_revision = p_revision) IS DISTINCT FROM p_hash THEN
        RAISE EXCEPTION 'stream % at revision % does not end with the hash the append follows', p_stream, p_revision USING ERRCODE = 'LL428';
      END IF;
      RETURN true;
    END $$`.execute(db);
}
