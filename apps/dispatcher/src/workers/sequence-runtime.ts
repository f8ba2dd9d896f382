import type { Logger } from '@mailcast/adapters';
import { RunSequenceSteps, SyncSegmentEnrolments } from '@mailcast/core';
import type { DependencyContainer } from 'tsyringe';
import type { SequenceRuntimeSettings } from '../config';
import { Pauses } from './pauses';

export interface SequenceRuntimeWorker {
  /** Stops looking for work and waits for the turn under way, which hands over its claims. */
  stop(): Promise<void>;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The sequence runtime of one dispatcher (docs/sequences.md, "Runtime"): turn after turn while
 * steps were recorded, else a pause of about a second; and the init_segment_id sync on its
 * interval. No timer is held per enrolment: due work is found in the database by time, and
 * dispatchers share it through the leases.
 */
export function startSequenceRuntime(container: DependencyContainer, settings: SequenceRuntimeSettings, logger?: Logger): SequenceRuntimeWorker {
  let stopped = false;
  const pauses = new Pauses();
  const steps = (async () => {
    while (!stopped) {
      let recorded = 0;
      try {
        recorded = await container.resolve(RunSequenceSteps).execute();
      } catch (error) {
        logger?.warn('sequence runtime turn failed', { error: messageOf(error) });
      }
      if (recorded === 0 && !stopped) await pauses.pause(settings.pollMs);
    }
  })();
  const sync = (async () => {
    while (!stopped) {
      try {
        const enrolled = await container.resolve(SyncSegmentEnrolments).execute();
        if (enrolled > 0) logger?.info('enrolled segment members in sequences', { enrolled });
      } catch (error) {
        logger?.warn('sequence segment sync failed', { error: messageOf(error) });
      }
      if (!stopped) await pauses.pause(settings.segmentSyncMs);
    }
  })();
  return {
    async stop() {
      stopped = true;
      pauses.wake();
      await Promise.all([steps, sync]);
    },
  };
}
