import type { RetainedTable, RetentionPolicy, RetentionStore } from '../ports';
import { PruneOldRows } from './prune-old-rows';

const DAY = 24 * 60 * 60 * 1000;
const NOW = new Date('2026-06-01T00:00:00Z');

/** Rows per table with their times; prune deletes like the real store, and logs each call. */
class FakeRetentionStore implements RetentionStore {
  readonly calls: Array<{ table: RetainedTable; before: string; limit: number }> = [];
  constructor(readonly rows: Record<RetainedTable, Date[]>) {}
  async prune(table: RetainedTable, before: Date, limit: number): Promise<number> {
    this.calls.push({ table, before: before.toISOString(), limit });
    const old = this.rows[table].filter((at) => at < before).slice(0, limit);
    this.rows[table] = this.rows[table].filter((at) => !old.includes(at));
    return old.length;
  }
}

const daysAgo = (n: number) => new Date(NOW.getTime() - n * DAY);
const policy = (overrides: Partial<RetentionPolicy> = {}): RetentionPolicy => ({
  keepMs: { webhook_deliveries: 30 * DAY, events: 30 * DAY, email_events: 180 * DAY, idempotency_keys: DAY, audit_log: 365 * DAY },
  batchSize: 2,
  maxBatchesPerRun: 10,
  ...overrides,
});
const run = (store: RetentionStore, p: RetentionPolicy) => new PruneOldRows(store, p, { now: () => NOW }).execute();

describe('PruneOldRows', () => {
  it('prunes each table past its own period, deliveries before events, in batches until one comes back short', async () => {
    const store = new FakeRetentionStore({
      webhook_deliveries: [daysAgo(40), daysAgo(31), daysAgo(29)],
      events: [daysAgo(40), daysAgo(35), daysAgo(31), daysAgo(1)],
      email_events: [daysAgo(200), daysAgo(40)],
      idempotency_keys: [daysAgo(2)],
      audit_log: [daysAgo(366), daysAgo(364)],
    });
    expect(await run(store, policy())).toEqual({ webhook_deliveries: 2, events: 3, email_events: 1, idempotency_keys: 1, audit_log: 1 });
    expect(store.calls.map((c) => c.table)).toEqual([
      'webhook_deliveries',
      'webhook_deliveries',
      'events',
      'events',
      'email_events',
      'idempotency_keys',
      'audit_log',
    ]);
    expect(store.rows.audit_log).toEqual([daysAgo(364)]);
    expect(store.calls[0]).toEqual({ table: 'webhook_deliveries', before: daysAgo(30).toISOString(), limit: 2 });
    expect(store.rows.events).toEqual([daysAgo(1)]);
  });

  it('stops a table after maxBatchesPerRun statements, leaving the rest for the next run', async () => {
    const store = new FakeRetentionStore({
      webhook_deliveries: [],
      events: [],
      idempotency_keys: [],
      audit_log: [],
      email_events: Array.from({ length: 7 }, (_, i) => daysAgo(300 + i)),
    });
    expect((await run(store, policy({ maxBatchesPerRun: 2 }))).email_events).toBe(4);
    expect(store.rows.email_events).toHaveLength(3);
  });

  it('never touches a table kept for ever', async () => {
    const store = new FakeRetentionStore({ webhook_deliveries: [], events: [], idempotency_keys: [], audit_log: [], email_events: [daysAgo(1000)] });
    const forever = policy();
    forever.keepMs = { ...forever.keepMs, email_events: null };
    expect((await run(store, forever)).email_events).toBe(0);
    expect(store.calls.some((c) => c.table === 'email_events')).toBe(false);
  });
});
