/**
 * The tables that grow with traffic and are pruned by age (docs/retention.md), in the order a
 * run prunes them: deliveries before the outbox events they belong to.
 */
export const RETAINED_TABLES = ['webhook_deliveries', 'events', 'email_events', 'idempotency_keys', 'audit_log'] as const;
export type RetainedTable = (typeof RETAINED_TABLES)[number];

export interface RetentionStore {
  /**
   * Deletes up to `limit` rows of `table` older than `before` that nothing waits on any more
   * (a finished delivery; a dispatched event none of whose deliveries is left; any raw email
   * event; an expired idempotency key; any audit log entry). Answers how many it deleted. Rows another transaction
   * holds are skipped, so several dispatchers may prune at once.
   */
  prune(table: RetainedTable, before: Date, limit: number): Promise<number>;
}
export const RetentionStore = Symbol.for('mailcast.RetentionStore');

/** How long each table's rows are kept, and how a run deletes them. */
export interface RetentionPolicy {
  /** Age after which rows are pruned, per table; null keeps that table's rows for ever. */
  keepMs: Record<RetainedTable, number | null>;
  /** Rows deleted per statement: short transactions, short locks. */
  batchSize: number;
  /** Statements per table per run at most; the rest waits for the next run. */
  maxBatchesPerRun: number;
}
export const RetentionPolicy = Symbol.for('mailcast.RetentionPolicy');
