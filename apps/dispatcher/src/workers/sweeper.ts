import type { Logger } from '@mailcast/adapters';
import { RecoverStalledBroadcasts, SweepDueBroadcasts } from '@mailcast/core';
import type { DependencyContainer } from 'tsyringe';

/**
 * The dispatcher's safety nets, at start and every `intervalMs`: scheduled broadcasts whose
 * time has passed but whose due job was lost, and broadcasts whose sending stalled (a
 * dispatcher died holding them). Every dispatcher sweeps; each broadcast moves once however
 * many sweep at the same time. A timer of the process's own rather than pg-boss cron: cron's
 * clock works its queue through the same pg-boss `work` whose unawaited writes can end the
 * process when the database goes away (see startWorkers). Returns its stop.
 */
export function startSweeper(container: DependencyContainer, intervalMs: number, logger: Logger): () => void {
  let busy = false;
  const sweep = async () => {
    if (busy) return;
    busy = true;
    try {
      const due = await container.resolve(SweepDueBroadcasts).execute();
      if (due.length > 0) logger.info('started due broadcasts whose job was lost', { broadcastIds: due });
      const stalled = await container.resolve(RecoverStalledBroadcasts).execute();
      if (stalled.length > 0) logger.info('resumed stalled broadcasts', { broadcastIds: stalled });
    } catch (error) {
      logger.warn('broadcast sweep failed', { error: error instanceof Error ? error.message : String(error) });
    } finally {
      busy = false;
    }
  };
  void sweep();
  const timer = setInterval(() => void sweep(), intervalMs);
  return () => clearInterval(timer);
}
