import type pg from 'pg';

export interface Lease {
  held(): boolean;
  release(): Promise<void>;
}

/**
 * A session-level advisory lock on a connection of its own: held while the connection lives,
 * so a runner that dies (or loses its connection) hands the projection to a standby.
 */
export async function acquireLease(pool: pg.Pool, key: string): Promise<Lease | null> {
  const client = await pool.connect();
  let held = false;
  try {
    const result = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [key]);
    held = result.rows[0].locked;
  } catch (error) {
    client.release(true);
    throw error;
  }
  if (!held) {
    client.release();
    return null;
  }
  const lost = () => {
    held = false;
  };
  client.on('error', lost);
  return {
    held: () => held,
    async release() {
      client.removeListener('error', lost);
      if (!held) {
        client.release(true);
        return;
      }
      held = false;
      try {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
        client.release();
      } catch {
        client.release(true);
      }
    },
  };
}
