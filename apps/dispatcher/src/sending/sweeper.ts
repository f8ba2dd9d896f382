import type { Logger } from '@mailcast/adapters';
import { RecoverStalledBroadcasts } from '@mailcast/core';
import type { DependencyContainer } from 'tsyringe';

/** Runs the stalled-broadcast sweep at start and every `intervalMs`; returns its stop. */
export function startSweeper(container: DependencyContainer, intervalMs: number, logger: Logger): () => void {
  let busy = false;
  const sweep = async () => {
    if (busy) return;
    busy = true;
    try {
      const ids = await container.resolve(RecoverStalledBroadcasts).execute();
      if (ids.length > 0) logger.info('resumed stalled broadcasts', { broadcastIds: ids });
    } catch (error) {
      logger.warn('stalled-broadcast sweep failed', { error: error instanceof Error ? error.message : String(error) });
    } finally {
      busy = false;
    }
  };
  void sweep();
  const timer = setInterval(() => void sweep(), intervalMs);
  return () => clearInterval(timer);
}
