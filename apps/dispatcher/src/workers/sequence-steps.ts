import type { Logger } from '@mailcast/adapters';
import { RunSequenceSteps } from '@mailcast/core';
import type { DependencyContainer } from 'tsyringe';

/**
 * The sequence step runtime's loop (docs/sequences.md, "Runtime"): works every due step, then
 * looks again after `idleMs`. Nothing is kept per enrolment in memory: due work is found in
 * the database by time. Every dispatcher runs one; the leases keep each enrolment with one of
 * them. Returns its stop, which waits for the turn under way.
 */
export function startSequenceSteps(container: DependencyContainer, idleMs: number, logger: Pick<Logger, 'warn'>): () => Promise<void> {
  let stopping = false;
  let wake: (() => void) | null = null;
  const loop = (async () => {
    while (!stopping) {
      try {
        await container.resolve(RunSequenceSteps).execute({ handOver: () => stopping });
      } catch (error) {
        logger.warn('sequence steps failed', { error: error instanceof Error ? error.message : String(error) });
      }
      if (stopping) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, idleMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  })();
  return async () => {
    stopping = true;
    (wake as (() => void) | null)?.();
    await loop;
  };
}
