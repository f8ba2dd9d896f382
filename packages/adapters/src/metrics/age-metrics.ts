import { Gauge, type Registry } from 'prom-client';
import type { Knex } from 'knex';

/**
 * How long things have waited, and how old the oldest kept rows are (docs/retention.md), read
 * from PostgreSQL at scrape time like the business figures. A wait that grows means a stuck
 * pipeline; a row age past its table's retention period means pruning is not keeping up.
 * Every query reads an index, the first rows of a primary key, or a small table.
 */
const WAITING: Record<string, string> = {
  // A broadcast still sending with recipients left: since it began sending.
  send: `SELECT min(b.begin_send_at) AS at FROM broadcasts b
          WHERE b.status = 'sending' AND EXISTS (
            SELECT 1 FROM broadcast_recipients r WHERE r.broadcast_id = b.id AND r.status IN ('pending', 'claimed'))`,
  webhook_delivery: `SELECT min(created_at) AS at FROM webhook_deliveries WHERE status = 'pending'`,
  outbox_event: `SELECT created_at AS at FROM events WHERE dispatched_at IS NULL ORDER BY id LIMIT 1`,
  job: `SELECT min(created_on) AS at FROM pgboss.job WHERE state IN ('created', 'retry') AND start_after <= now()`,
};
const OLDEST_ROW: Record<string, string> = {
  events: `SELECT created_at AS at FROM events ORDER BY id LIMIT 1`,
  webhook_deliveries: `SELECT created_at AS at FROM webhook_deliveries ORDER BY id LIMIT 1`,
  email_events: `SELECT occurred_at AS at FROM email_events ORDER BY id LIMIT 1`,
  idempotency_keys: `SELECT min(created_at) AS at FROM idempotency_keys`,
  // Entries arrive in time order (written as requests finish): the lowest id is the oldest.
  audit_log: `SELECT occurred_at AS at FROM audit_log ORDER BY id LIMIT 1`,
};

export function registerAgeMetrics(registry: Registry, db: Knex): void {
  let inFlight: Promise<void> | undefined;
  const refresh = () => {
    inFlight ??= read().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
  const waiting = new Gauge({
    name: 'mailcast_oldest_waiting_seconds',
    help: 'Age of the oldest item still waiting: send (a broadcast sending with recipients left), webhook_delivery (pending), outbox_event (not yet fanned out), job (due pg-boss job); 0 when none waits.',
    labelNames: ['what'],
    registers: [registry],
    collect: refresh,
  });
  const oldest = new Gauge({
    name: 'mailcast_oldest_row_age_seconds',
    help: 'Age of the oldest row kept in each table that retention prunes; 0 when the table is empty.',
    labelNames: ['table'],
    registers: [registry],
    collect: refresh,
  });

  /** Seconds since each query's `at`, on the database's clock; 0 when it found none. */
  const ages = async (queries: Record<string, string>): Promise<Array<[string, number]>> =>
    Promise.all(
      Object.entries(queries).map(async ([label, sql]) => {
        const { rows } = await db.raw<{ rows: Array<{ age: number | null }> }>(`SELECT extract(epoch FROM now() - q.at)::float8 AS age FROM (${sql}) q`);
        return [label, Math.max(0, Number(rows[0]?.age ?? 0))] as [string, number];
      }),
    );

  async function read(): Promise<void> {
    waiting.reset();
    oldest.reset();
    try {
      const [waits, rows] = await Promise.all([ages(WAITING), ages(OLDEST_ROW)]);
      for (const [what, age] of waits) waiting.set({ what }, age);
      for (const [table, age] of rows) oldest.set({ table }, age);
    } catch {
      // The database is away: the figures are absent (mailcast_database_up says why).
    }
  }
}
