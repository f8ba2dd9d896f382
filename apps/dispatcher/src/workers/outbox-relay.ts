import { FanOutEvents, RequeueLapsedAttempts, RequeueStalledDeliveries, type ClaimedAttempt } from '@mailcast/core';
import type { DependencyContainer } from 'tsyringe';
import { Pauses } from './pauses';

/** Where the relay's first attempts go: this dispatcher's delivery worker. */
export interface AttemptSink {
  /** How many more attempts it takes now; 0 while it is full. */
  room(): number;
  hand(attempts: readonly ClaimedAttempt[]): void;
}

export interface OutboxRelayOptions {
  /** Events claimed per transaction, at most. */
  batchSize: number;
  /**
   * Pause when the outbox was drained; a full batch goes round again at once, and so does a
   * relay woken (`wake()`) since its last claim began.
   */
  idleMs: number;
  /** How often the stalled-delivery sweep runs, and how old "stalled" is. */
  sweepEveryMs: number;
  stalledAfterMs: number;
  /** The lease of a first attempt held in memory (renewed by its holder while held). */
  leaseMs: number;
  /** How often first attempts whose lease lapsed (their holder died) are queued again. */
  lapsedEveryMs: number;
  onError(error: unknown): void;
}

export const DEFAULT_OUTBOX_RELAY: Omit<OutboxRelayOptions, 'onError'> = {
  batchSize: 500,
  idleMs: 50,
  sweepEveryMs: 60_000,
  // Past pg-boss's 15-minute expiry of an active job, with room for the 30 s time-out.
  stalledAfterMs: 20 * 60_000,
  leaseMs: 15_000,
  lapsedEveryMs: 2_000,
};

/**
 * The outbox relay: polls `events` for rows not yet dispatched and fans them out in batches,
 * handing each new delivery's first attempt to `sink` in memory. A poll is one indexed query on
 * a partial index (events_undispatched), so it costs nothing while idle, and every event
 * committed by any process is picked up, including those whose writer crashed right after
 * commit. Any number of dispatchers may run it (SKIP LOCKED). It claims only what the sink has
 * room for: the rest of a backlog stays in the outbox, the durable queue, for whichever
 * dispatcher has room first. Every few seconds it re-queues the first attempts of a dead
 * dispatcher (their lease lapsed), and once a minute, as the last net, deliveries lost any
 * other way (a job that expired with its dispatcher). `wake()` (a writer's NOTIFY after its
 * commit) ends the pause at once; the poll stays, for events whose writer sent none.
 */
export function startOutboxRelay(container: DependencyContainer, sink: AttemptSink, options: OutboxRelayOptions): { stop(): Promise<void>; wake(): void } {
  let stopped = false;
  const pauses = new Pauses();
  // A wake that came while a claim ran, not a pause: its events may have committed after the
  // claim's snapshot, so the pause after it is skipped.
  let woken = false;
  const loop = (async () => {
    const fanOut = container.resolve(FanOutEvents);
    const sweep = container.resolve(RequeueStalledDeliveries);
    const lapsed = container.resolve(RequeueLapsedAttempts);
    let nextSweep = Date.now() + options.sweepEveryMs;
    let nextLapsed = Date.now() + options.lapsedEveryMs;
    // Deliveries per event in the last batch (at least 1): how many events fit the sink's room.
    // When events fan out wider than the last batch did, one batch overshoots the room; the
    // overshoot is bounded by that batch, and the next one is sized by the new ratio.
    let perEvent = 1;
    while (!stopped) {
      try {
        if (Date.now() >= nextSweep) {
          nextSweep = Date.now() + options.sweepEveryMs;
          await sweep.execute({ stalledAfterMs: options.stalledAfterMs, limit: 1000 });
        }
        if (Date.now() >= nextLapsed) {
          nextLapsed = Date.now() + options.lapsedEveryMs;
          await lapsed.execute({ leaseMs: options.leaseMs, limit: 1000 });
        }
        const room = sink.room();
        if (room === 0) {
          await pauses.pause(options.idleMs);
          continue;
        }
        const limit = Math.max(1, Math.min(options.batchSize, Math.floor(room / perEvent)));
        woken = false;
        const { events, attempts } = await fanOut.execute({ batchSize: limit, leaseMs: options.leaseMs });
        if (attempts.length > 0) sink.hand(attempts);
        if (events > 0) perEvent = Math.max(1, attempts.length / events);
        if (events < limit && !woken) await pauses.pause(options.idleMs);
      } catch (error) {
        options.onError(error);
        await pauses.pause(Math.max(options.idleMs, 1000));
      }
    }
  })();
  return {
    wake() {
      woken = true;
      pauses.wake();
    },
    async stop() {
      stopped = true;
      pauses.wake();
      await loop;
    },
  };
}
