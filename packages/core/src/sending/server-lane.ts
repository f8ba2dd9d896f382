import {
  FRESH_SEND_RATE_STATE,
  inFlightCap,
  isRateBound,
  latenessAllowanceMs,
  recordThrottle,
  reserveSlots,
  shortLaneRate,
  type SendLimits,
  type SendRateState,
} from '@mailcast/domain';
import type { SendRateStore } from '../ports';

/** How a dispatcher takes its share of a server's limits (docs/sending-limits.md). */
export interface GateOptions {
  /** Slots are reserved at most this far ahead, so dispatchers share a server's rate finely. */
  horizonMs: number;
  /** Slots reserved per round trip, at most. */
  maxBatch: number;
  /** A message whose slot is further away than this goes back to the queue until then. */
  deferBeyondMs: number;
  /** Throttling answers one message may get before it goes back to the queue. */
  throttleRetries: number;
  /** How long a message that kept getting throttling answers waits in the queue. */
  throttleDeferMs: number;
  /** The first and the longest wait before an unreachable server is tried again. */
  backoffMs: readonly [number, number];
}

export const DEFAULT_GATE_OPTIONS: GateOptions = {
  horizonMs: 1_000,
  maxBatch: 128,
  deferBeyondMs: 30_000,
  throttleRetries: 10,
  throttleDeferMs: 10_000,
  backoffMs: [1_000, 60_000],
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const BUCKETS = 10;
const NOT_HELD = { done: () => undefined };

/**
 * One email server as this process sees it: the slots it reserved from the shared state, the
 * workers waiting for one, its recent sends, and whether it answers.
 */
export class ServerLane {
  limits: SendLimits = { perSecond: null, perMinute: null, perHour: null, perDay: null };
  /** Last known shared state, on the store's clock. */
  private state: SendRateState = FRESH_SEND_RATE_STATE;
  private offsetMs = 0;
  /** Granted slots, on this process's clock (Date.now), in order. */
  private slots: number[] = [];
  private nextAt: number | null = null;
  private waiters = 0;
  private reserving: Promise<void> | null = null;
  /** Sends per tenth of a second over the last second, for the rate a throttling answer halves. */
  private readonly sends = new Array<number>(BUCKETS).fill(0);
  private bucketAt = 0;
  private inFlight = 0;
  private answered: Array<() => void> = [];
  private downUntil = 0;
  private backoff = 0;
  private probing = false;

  constructor(
    readonly id: number,
    private readonly store: SendRateStore,
    private readonly options: GateOptions,
  ) {}

  /** Whether sending through this server needs slots (limits, or a throttling cap in force). */
  private bound(now: number): boolean {
    return isRateBound(this.limits, this.state, now + this.offsetMs);
  }

  /** About how long a message given to this server now would wait for its slot. */
  waitEstimate(now: number): number {
    if (!this.bound(now)) return 0;
    const rate = shortLaneRate(this.limits, this.state, now + this.offsetMs);
    const next = this.slots[0] ?? this.nextAt ?? this.state.tat - this.offsetMs;
    return Math.max(0, next - now) + (rate === null ? 0 : (this.waiters * 1000) / rate);
  }

  /**
   * Waits for a slot and for room among the messages in flight. Answers `done`, the function to
   * call once the server answered, or `defer` with the instant to retry the message at.
   */
  async acquire(): Promise<{ done: () => void } | { defer: number }> {
    if (!this.bound(Date.now())) return NOT_HELD;
    this.waiters++;
    try {
      for (;;) {
        const slot = this.slots.shift();
        if (slot !== undefined) {
          this.reserveAhead();
          const wait = slot - Date.now();
          if (wait > 0) await sleep(wait);
          // Later than its allowance, a message could bunch with those of the next slots.
          for (let late = this.late(slot); !late && this.inFlight >= this.cap(); late = this.late(slot)) {
            await Promise.race([new Promise<void>((resolve) => this.answered.push(resolve)), sleep(slot + this.lateness(Date.now()) - Date.now() + 1)]);
          }
          if (this.late(slot)) continue;
          this.inFlight++;
          return { done: () => this.release() };
        }
        const now = Date.now();
        if (this.nextAt !== null && this.nextAt > now + this.options.horizonMs) {
          if (this.nextAt - now > this.options.deferBeyondMs) return { defer: this.nextAt };
          // Ask again once half a horizon of slots is to be had, not a slot at a time.
          await sleep(this.nextAt - this.options.horizonMs / 2 - now);
        }
        await (this.reserving ??= this.reserve().finally(() => (this.reserving = null)));
      }
    } finally {
      this.waiters--;
    }
  }

  /**
   * While workers wait beyond the slots in hand and those run out within half a horizon, the
   * next batch is reserved already: it then arrives before its first slot, not after it.
   */
  private reserveAhead(): void {
    if (this.reserving !== null || this.waiters <= this.slots.length) return;
    const now = Date.now();
    const half = this.options.horizonMs / 2;
    if ((this.slots.at(-1) ?? now) - now > half || (this.nextAt !== null && this.nextAt - now > half)) return;
    this.reserving = this.reserve()
      .catch(() => undefined)
      .finally(() => (this.reserving = null));
  }

  private late(slot: number): boolean {
    const now = Date.now();
    return now - slot > this.lateness(now);
  }

  private cap(): number {
    return inFlightCap(this.limits, this.state, Date.now() + this.offsetMs);
  }

  private release(): void {
    this.inFlight--;
    const wake = this.answered;
    this.answered = [];
    for (const resolve of wake) resolve();
  }

  /** How late a slot may be used (docs/sending-limits.md). */
  private lateness(now: number): number {
    return latenessAllowanceMs(this.limits, this.state, now + this.offsetMs);
  }

  private async reserve(): Promise<void> {
    const wanted = Math.max(1, Math.min(this.options.maxBatch, this.waiters - this.slots.length));
    const { result, offsetMs } = await this.store.change(this.id, (state, now) => {
      const r = reserveSlots(this.limits, state, now, wanted, this.options.horizonMs, latenessAllowanceMs(this.limits, state, now));
      return { state: r.slots.length > 0 ? r.state : null, result: r };
    });
    this.offsetMs = offsetMs;
    this.state = result.state;
    this.slots.push(...result.slots.map((at) => at - offsetMs));
    this.nextAt = result.nextAt === null ? null : result.nextAt - offsetMs;
  }

  /** The server asked to slow down: the shared rate is halved, and slots granted at the old rate go. */
  async throttled(): Promise<void> {
    const observed = this.observedRate(Date.now());
    const { result, offsetMs } = await this.store.change(this.id, (state, now) => {
      const next = recordThrottle(this.limits, state, now, observed);
      return { state: next === state ? null : next, result: next };
    });
    this.offsetMs = offsetMs;
    this.state = result;
    this.slots = [];
    this.nextAt = null;
  }

  /** A message goes to the server now; answers whether it is the probe of a server that was away. */
  sending(now: number): boolean {
    this.roll(now);
    this.sends[Math.floor(now / 100) % BUCKETS]!++;
    if (!this.available(now) || this.downUntil === 0) return false;
    this.probing = true;
    return true;
  }

  /** Whether this server takes messages: it answers, or its probe is due and none is out. */
  available(now: number): boolean {
    return this.downUntil === 0 || (now >= this.downUntil && !this.probing);
  }

  /** The server answered (whatever it said). */
  reached(): void {
    this.downUntil = 0;
    this.backoff = 0;
    this.probing = false;
  }

  /**
   * The server could not be reached. The wait before the next probe doubles when the probe
   * fails; other messages that were in flight when it went away leave it as it is.
   */
  unreachable(now: number, wasProbe: boolean): void {
    if (this.downUntil !== 0 && !wasProbe) return;
    const [first, longest] = this.options.backoffMs;
    this.backoff = this.backoff === 0 ? first : Math.min(longest, this.backoff * 2);
    this.downUntil = now + this.backoff;
    this.probing = false;
  }

  private roll(now: number): void {
    const bucket = Math.floor(now / 100);
    for (let b = Math.max(this.bucketAt + 1, bucket - BUCKETS + 1); b <= bucket; b++) this.sends[b % BUCKETS] = 0;
    this.bucketAt = Math.max(this.bucketAt, bucket);
  }

  private observedRate(now: number): number {
    this.roll(now);
    return this.sends.reduce((a, b) => a + b, 0);
  }
}
