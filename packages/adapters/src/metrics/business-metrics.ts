import { Gauge, type Registry } from 'prom-client';
import type { Knex } from 'knex';
import { QUEUES } from '@mailcast/core';

/**
 * The deployment's business figures, read from PostgreSQL at scrape time (docs/operations.md:
 * Observability): whichever api replica is scraped reports the same numbers, and no dispatcher
 * needs to be scraped for them. Every query reads an index or a small table.
 */
export function registerBusinessMetrics(registry: Registry, db: Knex): void {
  // prom-client asks every metric for its values at once, awaiting each one's collect(). All of
  // them share one read per scrape, so the figures are from the same moment and fresh.
  let inFlight: Promise<void> | undefined;
  const refresh = () => {
    inFlight ??= read().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  const emails = new Gauge({
    name: 'mailcast_emails',
    help: 'Broadcast recipients by outcome so far: sent (accepted by SMTP), bounced (5xx), failed (gave up).',
    labelNames: ['outcome'],
    registers: [registry],
    collect: refresh,
  });

  const deliveries = new Gauge({
    name: 'mailcast_webhook_deliveries',
    help: 'Webhook deliveries by outcome: succeeded, pending (retries remain), failed (exhausted), cancelled.',
    labelNames: ['outcome'],
    registers: [registry],
    collect: refresh,
  });

  const latency = new Gauge({
    name: 'mailcast_webhook_delivery_latency_seconds',
    help: 'Event-to-successful-delivery latency of webhook deliveries that succeeded in the last 5 minutes.',
    labelNames: ['quantile'],
    registers: [registry],
    collect: refresh,
  });

  const queueDepth = new Gauge({
    name: 'mailcast_queue_depth',
    help: 'Jobs waiting (created or retry, due or not) per pg-boss queue.',
    labelNames: ['queue'],
    registers: [registry],
    collect: refresh,
  });

  async function read(): Promise<void> {
    emails.reset();
    deliveries.reset();
    latency.reset();
    queueDepth.reset();
    try {
      const [emailRows, deliveryRows, latencyRows, queueRows] = await Promise.all([
        // The statistics' own counters (kept as each email event is recorded): a few rows per
        // broadcast, where counting broadcast_recipients would read every recipient per scrape.
        db.raw<{ rows: { outcome: string; count: number }[] }>(
          `SELECT CASE counter WHEN 'delivered' THEN 'sent' ELSE counter END AS outcome,
                  CAST(sum(recipients) AS int) AS count
             FROM broadcast_statistics WHERE counter IN ('delivered', 'bounced', 'failed') GROUP BY counter`,
        ),
        db.raw<{ rows: { outcome: string; count: number }[] }>(`SELECT status AS outcome, count(*)::int AS count FROM webhook_deliveries GROUP BY status`),
        db.raw<{ rows: { p50: number | null; p99: number | null }[] }>(
          `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY s) AS p50,
                  percentile_cont(0.99) WITHIN GROUP (ORDER BY s) AS p99
             FROM (SELECT extract(epoch FROM d.successfully_delivered_at - e.created_at) AS s
                     FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
                    WHERE d.successfully_delivered_at > now() - interval '5 minutes') recent`,
        ),
        db.raw<{ rows: { queue: string; count: number }[] }>(
          `SELECT name AS queue, count(*)::int AS count FROM pgboss.job
            WHERE state IN ('created', 'retry') GROUP BY name`,
        ),
      ]);
      for (const outcome of ['sent', 'bounced', 'failed']) emails.set({ outcome }, 0);
      for (const row of emailRows.rows) emails.set({ outcome: row.outcome }, row.count);
      for (const outcome of ['succeeded', 'pending', 'failed', 'cancelled']) deliveries.set({ outcome }, 0);
      for (const row of deliveryRows.rows) deliveries.set({ outcome: row.outcome }, row.count);
      const recent = latencyRows.rows[0];
      if (recent?.p50 != null) latency.set({ quantile: '0.5' }, Number(recent.p50));
      if (recent?.p99 != null) latency.set({ quantile: '0.99' }, Number(recent.p99));
      for (const queue of QUEUES) queueDepth.set({ queue }, 0);
      for (const row of queueRows.rows) queueDepth.set({ queue: row.queue }, row.count);
      databaseUp.set(1);
    } catch {
      // A scrape during a database outage still answers, with the outage visible.
      databaseUp.set(0);
    }
  }

  const databaseUp = new Gauge({
    name: 'mailcast_database_up',
    help: '1 when the last scrape could read PostgreSQL, else 0 (the other business figures are then absent).',
    registers: [registry],
    collect: refresh,
  });
}
