import type { Logger } from '@mailcast/adapters';
import { PruneOldRows } from '@mailcast/core';
import type { DependencyContainer } from 'tsyringe';

/**
 * Prunes old rows (docs/retention.md) at start and every `intervalMs`, one run at a time. Every
 * dispatcher runs it; their deletes skip each other's rows. A timer of the process's own, like
 * the sweeper. Returns its stop.
 */
export function startRetention(container: DependencyContainer, intervalMs: number, logger: Logger): () => void {
  let busy = false;
  const run = async () => {
    if (busy) return;
    busy = true;
    try {
      const report = await container.resolve(PruneOldRows).execute();
      if (Object.values(report).some((n) => n > 0)) logger.info('pruned old rows', report);
    } catch (error) {
      logger.warn('retention run failed', { error: error instanceof Error ? error.message : String(error) });
    } finally {
      busy = false;
    }
  };
  void run();
  const timer = setInterval(() => void run(), intervalMs);
  return () => clearInterval(timer);
}
