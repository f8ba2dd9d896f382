import type { RetainedTable, RetentionStore } from '@mailcast/core';
import type { Knex } from 'knex';

/**
 * The rows of each table that retention may delete once older than `:before`, at most `:limit`
 * of them, locked so that two dispatchers pruning at once take different rows (SKIP LOCKED).
 * An event goes only once dispatched and once its deliveries are gone (they are pruned first),
 * so deleting it never cascades to a delivery still kept; a pending delivery is never pruned.
 */
const SQL: Record<RetainedTable, string> = {
  webhook_deliveries: `
    DELETE FROM webhook_deliveries WHERE id IN (
      SELECT id FROM webhook_deliveries
       WHERE created_at < :before AND status <> 'pending'
       LIMIT :limit FOR UPDATE SKIP LOCKED)`,
  events: `
    DELETE FROM events WHERE id IN (
      SELECT e.id FROM events e
       WHERE e.created_at < :before AND e.dispatched_at IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
       LIMIT :limit FOR UPDATE SKIP LOCKED)`,
  email_events: `
    DELETE FROM email_events WHERE id IN (
      SELECT id FROM email_events WHERE occurred_at < :before LIMIT :limit FOR UPDATE SKIP LOCKED)`,
  idempotency_keys: `
    DELETE FROM idempotency_keys WHERE (token_id, key) IN (
      SELECT token_id, key FROM idempotency_keys WHERE created_at < :before LIMIT :limit FOR UPDATE SKIP LOCKED)`,
  audit_log: `
    DELETE FROM audit_log WHERE id IN (
      SELECT id FROM audit_log WHERE occurred_at < :before LIMIT :limit FOR UPDATE SKIP LOCKED)`,
};

/** Retention's deletes (docs/retention.md): one bounded statement per batch. */
export class PgRetentionStore implements RetentionStore {
  constructor(private readonly db: Knex) {}

  async prune(table: RetainedTable, before: Date, limit: number): Promise<number> {
    const result = await this.db.raw<{ rowCount: number | null }>(SQL[table], { before, limit });
    return result.rowCount ?? 0;
  }
}
