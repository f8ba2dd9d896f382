import { DEFAULT_GATE_OPTIONS, type GateOptions } from './gate-options';
import { LeasedRun } from './leased-run';
import type { LeasedWork, RunOptions, WorkItem } from './leased-work';
import {
  MessageWithdrawn,
  type Clearance,
  type LimitedServer,
  type Mailer,
  type OutgoingEmail,
  type RandomSource,
  type SendRateStore,
  type Timers,
} from './ports';
import { forUpTo, retrying } from './retrying';
import { ServerGate, type GatedOutcome } from './server-gate';

export interface SendEngineParts<S extends LimitedServer> {
  /** Broadcasts' and sequences' messages. */
  mailer: Mailer<S>;
  /** Transactional and confirmation messages: connections of their own, never behind a broadcast. */
  priorityMailer: Mailer<S>;
  rates: SendRateStore;
  timers: Timers;
  random: RandomSource;
  /**
   * The mailer's connections per server: a server with a per-second limit gets at most this many
   * bulk messages at once from this process, so none waits in the mailer's queue holding a
   * permit (docs/sending-limits.md). Absent: no such cap.
   */
  connections?: number;
  gate?: GateOptions;
}

/**
 * The send engine, one per process (docs/broadcasts-and-sending.md, "The send engine"). Use cases
 * hand it messages (`send`) and runs of leased work (`run`); it owns what every send shares in
 * the process: the gate with each server's slots, permits and reachability, and the runs under way.
 */
export class SendEngine<S extends LimitedServer = LimitedServer> {
  private readonly gate: ServerGate;
  private readonly running = new Set<string>();

  constructor(private readonly parts: SendEngineParts<S>) {
    this.gate = new ServerGate(parts.rates, parts.timers, parts.random, parts.gate ?? DEFAULT_GATE_OPTIONS);
  }

  /**
   * Sends one message through one of `servers` (the gate picks the server and the moment; a
   * server away is left for another). `build` makes the message for the server chosen.
   * `priority` messages use the priority mailer and no connection bound. `signal` withdraws a
   * message that has not started (MessageWithdrawn).
   */
  send(servers: readonly S[], build: (server: S) => OutgoingEmail, options: { signal?: AbortSignal; priority?: boolean } = {}): Promise<GatedOutcome> {
    const { signal, priority = false } = options;
    if (signal?.aborted === true) return Promise.reject(new MessageWithdrawn());
    const mailer = priority ? this.parts.priorityMailer : this.parts.mailer;
    const room = priority ? Infinity : (this.parts.connections ?? Infinity);
    return this.gate.send(servers, room, (server, clearance?: Clearance) => mailer.send(server, build(server), signal, clearance), signal);
  }

  /** Opens this job's turn at a run of leased work; close it when done. */
  run<T extends WorkItem, O>(work: LeasedWork<T, O>, options: RunOptions): LeasedRun<T, O> {
    return new LeasedRun(work, options, this.parts.timers);
  }

  /**
   * Runs `work` unless this process already runs work under `key` (one working loop per
   * broadcast per process: a second would only double its messages in flight).
   */
  async exclusive<R>(key: string, work: () => Promise<R>): Promise<R | 'already_running'> {
    if (this.running.has(key)) return 'already_running';
    this.running.add(key);
    try {
      return await work();
    } finally {
      this.running.delete(key);
    }
  }

  /** A statement safe to repeat, tried again through a database outage of up to `ms`. */
  persist<R>(statement: () => Promise<R>, ms: number): Promise<R> {
    const timers = this.parts.timers;
    return retrying(
      statement,
      forUpTo(ms, () => timers.now()),
      (wait) => timers.sleep(wait),
    );
  }

  now(): number {
    return this.parts.timers.now();
  }

  sleep(ms: number): Promise<void> {
    return this.parts.timers.sleep(ms);
  }
}
