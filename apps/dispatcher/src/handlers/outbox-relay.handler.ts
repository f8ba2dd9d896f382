import { FanOutEvents, RequeueStalledDeliveries } from '@mailcast/core';
import type { DependencyContainer } from 'tsyringe';

export interface OutboxRelayOptions {
  /** Events claimed per transaction. */
  batchSize: number;
  /** Pause when the outbox was drained; a full batch goes round again at once. */
  idleMs: number;
  /** How often the stalled-delivery sweep runs, and how old "stalled" is. */
  sweepEveryMs: number;
  stalledAfterMs: number;
  onError(error: unknown): void;
}

export const DEFAULT_OUTBOX_RELAY: Omit<OutboxRelayOptions, 'onError'> = {
  batchSize: 500,
  idleMs: 50,
  sweepEveryMs: 60_000,
  // Past pg-boss's 15-minute expiry of an active job, with room for the 30 s time-out.
  stalledAfterMs: 20 * 60_000,
};

/**
 * The outbox relay: polls `events` for rows not yet dispatched and fans them out in batches.
 * A poll is one indexed query on a partial index (events_undispatched), so it costs nothing
 * while idle, and every event committed by any process is picked up, including those whose
 * writer crashed right after commit. Any number of dispatchers may run it (SKIP LOCKED). Once
 * a minute it also re-queues deliveries whose job was lost with a dead dispatcher.
 */
export function startOutboxRelay(container: DependencyContainer, options: OutboxRelayOptions): { stop(): Promise<void> } {
  let stopped = false;
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const loop = (async () => {
    const fanOut = container.resolve(FanOutEvents);
    const sweep = container.resolve(RequeueStalledDeliveries);
    let nextSweep = Date.now() + options.sweepEveryMs;
    while (!stopped) {
      try {
        if (Date.now() >= nextSweep) {
          nextSweep = Date.now() + options.sweepEveryMs;
          await sweep.execute({ stalledAfterMs: options.stalledAfterMs, limit: 1000 });
        }
        const { events } = await fanOut.execute({ batchSize: options.batchSize });
        if (events < options.batchSize) await pause(options.idleMs);
      } catch (error) {
        options.onError(error);
        await pause(Math.max(options.idleMs, 1000));
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}
