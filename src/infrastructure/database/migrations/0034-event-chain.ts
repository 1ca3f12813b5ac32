import { type Kysely, sql } from 'kysely';

/**
 * The hash chain of every stream (decision 0044). `hash` is SHA-256 over `previous_hash` (the
 * hash of the stream's event before, 32 zero bytes before its first) and the event's canonical
 * JSON, which the appender sends; the append's own statement computes the links of its events
 * (`ledgerline_event_chain` those of several), from the previous event's stored hash, so an append stays
 * one statement and two appends racing for a revision cannot both chain onto it (the unique key
 * refuses one). Events stored before this migration have no hash (NULL, both columns), and an
 * event appended after one of them has none either; `ledgerline audit chain` gives them theirs,
 * resumably (`events_unchained` finds what is left). The log stays append-only: the only UPDATE
 * allowed is that one, which fills in the two columns and changes nothing else.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE events ADD COLUMN previous_hash bytea, ADD COLUMN hash bytea`.execute(db);
  await sql`CREATE INDEX events_unchained ON events (stream_id, stream_revision) WHERE hash IS NULL`.execute(db);
  // The links of several events at once: their canonical JSON a line each (JSON holds no raw newline).
  await sql`
    CREATE FUNCTION ledgerline_event_chain(p_previous bytea, p_bodies text)
    RETURNS TABLE (ordinal integer, body jsonb, previous_hash bytea, hash bytea)
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
    DECLARE
      link bytea := p_previous;
      line text;
    BEGIN
      ordinal := 0;
      FOREACH line IN ARRAY string_to_array(p_bodies, E'\n') LOOP
        ordinal := ordinal + 1;
        body := line::jsonb;
        previous_hash := link;
        -- NULL after an event not chained yet: this one waits for the backfill too.
        hash := sha256(link || convert_to(line, 'UTF8'));
        link := hash;
        RETURN NEXT;
      END LOOP;
    END $$`.execute(db);
  // ledgerline_append_after's checks (0025), then the previous event's hash.
  await sql`
    CREATE FUNCTION ledgerline_chain_after(p_stream text, p_revision bigint, p_inline text[]) RETURNS bytea
    LANGUAGE plpgsql STABLE AS $$
    BEGIN
      PERFORM ledgerline_append_after(p_stream, p_revision, p_inline);
      RETURN (SELECT e.hash FROM events e WHERE e.stream_id = p_stream AND e.stream_revision = p_revision);
    END $$`.execute(db);
  await sql`DROP TRIGGER events_append_only ON events`.execute(db);
  // Any statement that deletes, or names a column but the two hashes, is refused whole, rows or none.
  await sql`
    CREATE TRIGGER events_append_only
    BEFORE DELETE OR TRUNCATE OR UPDATE OF global_position, transaction_id, event_id, stream_id, stream_revision, type, data, metadata, applied_inline ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change()`.execute(db);
  await sql`
    CREATE FUNCTION events_refuse_change_but_chaining() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF OLD.hash IS NULL AND OLD.previous_hash IS NULL AND NEW.hash IS NOT NULL AND NEW.previous_hash IS NOT NULL
         AND to_jsonb(NEW) - 'previous_hash' - 'hash' = to_jsonb(OLD) - 'previous_hash' - 'hash' THEN
        RETURN NEW;
      END IF;
      RAISE EXCEPTION 'events are append-only: UPDATE refused (only an event without a hash may be given one)';
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER events_chained_once BEFORE UPDATE ON events
    FOR EACH ROW EXECUTE FUNCTION events_refuse_change_but_chaining()`.execute(db);
}
