import type pg from 'pg';

/**
 * Wakes readers when PostgreSQL NOTIFYs a channel. The notification is only a cue to read
 * again; readers also wake on a timeout, so a lost notification delays, never loses, an event.
 */
export class AppendSignal {
  private client: pg.PoolClient | null = null;
  private connecting: Promise<void> | null = null;
  private waiters = new Set<() => void>();
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly channel: string,
    private readonly onPayload?: (payload: string) => void,
  ) {}

  /** Starts listening now rather than on the first wait (for payload consumers). */
  async listen(): Promise<void> {
    await this.ensureListening();
  }

  /** Wakes this process's readers at once (an append made here needs no round trip to be seen). */
  wake(): void {
    for (const wake of [...this.waiters]) wake();
  }

  async next(timeoutMs: number): Promise<void> {
    if (this.closed) return;
    await this.ensureListening().catch(() => undefined);
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, timeoutMs);
      this.waiters.add(wake);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake();
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners('notification');
      client.removeAllListeners('error');
      await client.query(`UNLISTEN ${this.channel}`).catch(() => undefined);
      client.release();
    }
  }

  private ensureListening(): Promise<void> {
    if (this.client || this.closed) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = await this.pool.connect();
    const onNotification = (message: { channel: string; payload?: string }) => {
      if (message.channel !== this.channel) return;
      this.onPayload?.(message.payload ?? '');
      this.wake();
    };
    client.on('notification', onNotification);
    try {
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      // A client that cannot listen goes back broken, never leaked: a leak per retry would drain the pool.
      client.removeListener('notification', onNotification);
      client.release(true);
      throw error;
    }
    if (this.closed) {
      client.removeListener('notification', onNotification);
      client.release();
      return;
    }
    client.once('error', () => {
      // The connection died: drop it so the next wait listens again on a fresh one.
      if (this.client !== client) return;
      this.client = null;
      client.release(true);
    });
    this.client = client;
  }
}
