import { inject, injectable } from 'tsyringe';
import { Clock, RETAINED_TABLES, RetentionPolicy, RetentionStore, type RetainedTable } from '../ports';

/** Rows deleted per table by one run. */
export type PruneReport = Record<RetainedTable, number>;

/**
 * Deletes the rows older than each table's retention period, in bounded batches
 * (docs/retention.md). Only raw rows go: the statistics are kept in aggregates written as each
 * event was recorded, so their answers do not change. Run on a schedule by every dispatcher.
 */
@injectable()
export class PruneOldRows {
  constructor(
    @inject(RetentionStore) private readonly store: RetentionStore,
    @inject(RetentionPolicy) private readonly policy: RetentionPolicy,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(): Promise<PruneReport> {
    const now = this.clock.now().getTime();
    const report = Object.fromEntries(RETAINED_TABLES.map((t) => [t, 0])) as PruneReport;
    for (const table of RETAINED_TABLES) {
      const keepMs = this.policy.keepMs[table];
      if (keepMs === null) continue;
      const before = new Date(now - keepMs);
      for (let batch = 0; batch < this.policy.maxBatchesPerRun; batch++) {
        const deleted = await this.store.prune(table, before, this.policy.batchSize);
        report[table] += deleted;
        if (deleted < this.policy.batchSize) break;
      }
    }
    return report;
  }
}
