import pg from 'pg';
import type PgBoss from 'pg-boss';

/** The channel a job's sender NOTIFYs with the queue's name, for jobs a dispatcher should fetch at once. */
export const JOBS_CHANNEL = 'mailcast_jobs';

/** Announces a job on `queue`; inside a transaction the notification is delivered at its commit. */
export async function notifyJob(db: PgBoss.Db, queue: string): Promise<void> {
  await db.executeSql('SELECT pg_notify($1, $2)', [JOBS_CHANNEL, queue]);
}

export interface JobListener {
  close(): Promise<void>;
}

/**
 * LISTENs on one connection of its own and calls `onJob(queue)` for every job announced. Only a
 * shortcut: the workers still poll, so a notification lost while the connection is down (it
 * reconnects every `retryMs`) delays a job by one poll, never loses it.
 */
export function listenForJobs(
  connectionString: string,
  onJob: (queue: string) => void,
  options: { retryMs?: number; onError?: (error: unknown) => void } = {},
): JobListener {
  let closed = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  const retryMs = options.retryMs ?? 1_000;

  const connect = async (): Promise<void> => {
    if (closed) return;
    const c = new pg.Client({ connectionString, application_name: 'mailcast-dispatcher-listen' });
    client = c;
    const again = (error?: unknown) => {
      if (error !== undefined) options.onError?.(error);
      c.removeAllListeners();
      c.on('error', () => undefined);
      void c.end().catch(() => undefined);
      if (client === c) client = undefined;
      if (!closed && timer === undefined) timer = setTimeout(() => ((timer = undefined), void connect()), retryMs);
    };
    c.on('error', again);
    c.on('end', () => again());
    c.on('notification', (n) => {
      if (n.channel === JOBS_CHANNEL && n.payload) onJob(n.payload);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${JOBS_CHANNEL}`);
    } catch (error) {
      again(error);
    }
  };
  void connect();

  return {
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      const c = client;
      client = undefined;
      if (c !== undefined) {
        c.removeAllListeners();
        c.on('error', () => undefined);
        await c.end().catch(() => undefined);
      }
    },
  };
}
