import type { Knex } from 'knex';
import pg from 'pg';

export interface NotificationListenerOptions {
  onError?: (error: Error) => void;
  /** The listening connection; by default a new one with the pool's connection settings. */
  connect?: () => pg.Client;
}

const RECONNECT_AFTER_MS = 1_000;

/**
 * A connection of its own that LISTENs on one PostgreSQL channel, for a process's in-memory
 * cache of rows others may change (the api's verified tokens, its public forms). `changed` is
 * called on every notification, and whenever listening starts or stops: what happened while
 * nobody listened was unheard, so a cache must start empty. While `active` is false a cache
 * must not serve from memory. Connecting is tried at most once a second, on demand (`ensure`).
 */
export class NotificationListener {
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private lastAttempt = Number.NEGATIVE_INFINITY;
  private closed = false;

  constructor(
    private readonly db: Knex,
    private readonly channel: string,
    private readonly changed: () => void,
    private readonly options: NotificationListenerOptions = {},
  ) {}

  /** Whether notifications are being heard. */
  get active(): boolean {
    return this.client !== undefined;
  }

  /** Starts listening unless it is, is starting, or was tried less than a second ago. Never waits. */
  ensure(): void {
    if (this.closed || this.client !== undefined || this.connecting !== undefined) return;
    // Real time, not an injectable clock: a fixed test clock must not stop the retries.
    if (performance.now() - this.lastAttempt < RECONNECT_AFTER_MS) return;
    this.lastAttempt = performance.now();
    this.connecting = this.listen()
      .catch((error: Error) => this.options.onError?.(error))
      .finally(() => (this.connecting = undefined));
  }

  /** Listens now rather than on first use; resolves once it listens (or failed). */
  async start(): Promise<void> {
    this.ensure();
    await this.connecting;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.connecting;
    const client = this.client;
    this.drop();
    await client?.end().catch(() => undefined);
  }

  private drop(): void {
    this.client = undefined;
    this.changed();
  }

  private async listen(): Promise<void> {
    const client = this.options.connect?.() ?? new pg.Client((this.db.client as { connectionSettings: pg.ClientConfig }).connectionSettings);
    const lost = (error?: Error) => {
      if (this.client === client) this.drop();
      if (error !== undefined && !this.closed) this.options.onError?.(error);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      if (message.channel === this.channel) this.changed();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    // Whatever was decided before this point was decided unheard: start empty.
    this.changed();
    this.client = client;
  }
}
