import type pg from 'pg';

export interface AppendSignalOptions {
  /** Called each time LISTEN is re-established after its connection dropped: notifications sent meanwhile were lost. */
  readonly onRelisten?: () => void;
  /** Delay before the first attempt to listen again after a drop; doubles per failure. */
  readonly retryInitialMs?: number;
  readonly retryMaxMs?: number;
}

const RETRY_INITIAL_MS = 100;
const RETRY_MAX_MS = 5_000;

/**
 * Wakes readers when PostgreSQL NOTIFYs a channel. The notification is only a cue to read
 * again; readers also wake on a timeout, so a lost notification delays, never loses, an event.
 *
 * Once listening, it keeps listening until closed: when the connection drops (server restart,
 * pg_terminate_backend, a dead peer found by keepalive) it listens again on a fresh one, retrying
 * with capped exponential backoff, and then wakes every reader once for what it may have missed.
 */
export class AppendSignal {
  private client: pg.PoolClient | null = null;
  private connecting: Promise<void> | null = null;
  private retry: NodeJS.Timeout | null = null;
  private retryDelayMs: number;
  private dropped = false;
  private unlisten: () => void = () => undefined;
  private waiters = new Set<() => void>();
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly channel: string,
    private readonly onPayload?: (payload: string) => void,
    private readonly options: AppendSignalOptions = {},
  ) {
    this.retryDelayMs = options.retryInitialMs ?? RETRY_INITIAL_MS;
  }

  /** Starts listening now rather than on the first wait (for payload consumers); rejects if that first attempt fails. */
  async listen(): Promise<void> {
    await this.ensureListening();
  }

  /** True while a LISTEN connection is up. */
  get listening(): boolean {
    return this.client !== null;
  }

  /** Wakes this process's readers at once (an append made here needs no round trip to be seen). */
  wake(): void {
    for (const wake of [...this.waiters]) wake();
  }

  async next(timeoutMs: number): Promise<void> {
    if (this.closed) return;
    const attempt = this.ensureListening().catch(() => undefined);
    // Only the first LISTEN is waited for (an append right after it must be heard). While a lost
    // connection is being replaced, readers go on polling instead of waiting on the reconnect.
    if (!this.dropped) await attempt;
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
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    this.wake();
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = null;
    if (client) {
      this.unlisten();
      await client.query(`UNLISTEN ${this.channel}`).catch(() => undefined);
      client.release();
    }
  }

  private ensureListening(): Promise<void> {
    if (this.client || this.closed) return Promise.resolve();
    // A reconnect is scheduled: its backoff decides when to try, not the readers' polls.
    if (this.retry) return Promise.reject(new Error(`not listening on ${this.channel}; retry scheduled`));
    this.connecting ??= this.connect()
      .catch((error: unknown) => {
        this.scheduleRetry();
        throw error;
      })
      .finally(() => {
        this.connecting = null;
      });
    return this.connecting;
  }

  private scheduleRetry(): void {
    if (this.closed || this.retry) return;
    const delayMs = this.retryDelayMs;
    this.retryDelayMs = Math.min(delayMs * 2, this.options.retryMaxMs ?? RETRY_MAX_MS);
    this.retry = setTimeout(() => {
      this.retry = null;
      this.ensureListening().catch(() => undefined);
    }, delayMs);
    this.retry.unref();
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
    const lost = () => {
      client.removeListener('notification', onNotification);
      client.removeListener('error', lost);
      client.removeListener('end', lost);
      this.lose(client);
    };
    client.on('error', lost);
    client.on('end', lost);
    this.client = client;
    this.unlisten = () => {
      client.removeListener('notification', onNotification);
      client.removeListener('error', lost);
      client.removeListener('end', lost);
    };
    this.retryDelayMs = this.options.retryInitialMs ?? RETRY_INITIAL_MS;
    if (this.dropped) {
      this.options.onRelisten?.();
      this.wake();
    }
  }

  /** The connection died: drop it and listen again on a fresh one after a backoff. */
  private lose(client: pg.PoolClient): void {
    if (this.client !== client) return;
    this.client = null;
    this.dropped = true;
    client.release(true);
    this.scheduleRetry();
  }
}
