import {
  FRESH_SEND_RATE_STATE,
  HOLD_LEASE_MS,
  isRateBound,
  LATE_SLOT_MS,
  PERMIT_HOLD_MS,
  recordThrottle,
  reserveSlots,
  shortLaneRate,
  withHolds,
  type Holder,
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
  /** Answers are written for the other dispatchers this soon, when no reservation carries them. */
  flushMs: number;
  /** A dispatcher out of permits asks again this often. */
  permitPollMs: number;
}

export const DEFAULT_GATE_OPTIONS: GateOptions = {
  horizonMs: 1_000,
  maxBatch: 128,
  deferBeyondMs: 30_000,
  throttleRetries: 10,
  throttleDeferMs: 10_000,
  backoffMs: [1_000, 60_000],
  flushMs: 50,
  permitPollMs: 25,
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const BUCKETS = 10;
/** Names this process's permits in the shared state: unique enough among live dispatchers. */
const ownerId = () => `${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 12)}`;
const NOT_HELD = { done: () => undefined };
type Change<T> = (state: SendRateState, now: number) => { state: SendRateState | null; result: T };
/** A granted slot: when to use it on this process's clock, and its instant on the store's (its permit's). */
interface Slot {
  at: number;
  booked: number;
}

/**
 * One email server as this process sees it: the slots it reserved from the shared state, the
 * workers waiting for one, its recent sends, and whether it answers.
 */
export class ServerLane {
  limits: SendLimits = { perSecond: null, perMinute: null, perHour: null, perDay: null };
  /** Messages this process may have at a per-second-limited server at once (slot to answer). */
  room = Infinity;
  private active = 0;
  private roomWaiters: Array<() => void> = [];
  /** Last known shared state, on the store's clock. */
  private state: SendRateState = FRESH_SEND_RATE_STATE;
  private offsetMs = 0;
  private uncertaintyMs = 0;
  /** Granted slots in order: when to use each on this process's clock, and its instant on the store's. */
  private slots: Slot[] = [];
  private nextAt: number | null = null;
  private permitBound = false;
  private waiters = 0;
  private reserving: Promise<void> | null = null;
  /** This process's permits (docs/sending-limits.md): open messages, and releases on the store's clock. */
  private readonly holder = { id: ownerId(), opens: [] as number[], releases: [] as number[] };
  /** Changes to this process's permits, and how many of them the store has. */
  private holdsSeq = 0;
  private writtenSeq = 0;
  private seenSeq = 0;
  private lastWrite = 0;
  private flushing: ReturnType<typeof setTimeout> | null = null;
  private renewing: ReturnType<typeof setInterval> | null = null;
  private sweeping: ReturnType<typeof setTimeout> | null = null;
  private changing: Promise<void> = Promise.resolve();
  /** Workers waiting for one of this process's permits to be freed. */
  private freed: Array<() => void> = [];
  /** Sends per tenth of a second over the last second, for the rate a throttling answer halves. */
  private readonly sends = new Array<number>(BUCKETS).fill(0);
  private bucketAt = 0;
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
    const next = this.slots[0]?.at ?? this.nextAt ?? this.state.tat - this.offsetMs;
    return Math.max(0, next - now) + (rate === null ? 0 : (this.waiters * 1000) / rate);
  }

  /**
   * Waits for a slot (and, with a per-second limit, a permit). Answers `done`, the function to
   * call once the server answered, or `defer` with the instant to retry the message at.
   */
  async acquire(): Promise<{ done: () => void } | { defer: number }> {
    if (!this.bound(Date.now())) return NOT_HELD;
    if (!this.permits) return this.acquireSlot();
    // Beyond the mailer's connections a message would wait in its queue holding a permit: it
    // waits here instead, before it takes a slot.
    while (this.active >= this.room) await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    this.active++;
    const leave = () => {
      this.active--;
      this.roomWaiters.shift()?.();
    };
    try {
      const slot = await this.acquireSlot();
      if ('defer' in slot) {
        leave();
        return slot;
      }
      return {
        done: () => {
          leave();
          slot.done();
        },
      };
    } catch (error) {
      leave();
      throw error;
    }
  }

  private async acquireSlot(): Promise<{ done: () => void } | { defer: number }> {
    this.waiters++;
    try {
      for (;;) {
        const slot = this.slots.shift();
        if (slot !== undefined) {
          this.reserveAhead();
          const wait = slot.at - Date.now();
          if (wait > 0) await sleep(wait);
          if (Date.now() - slot.at > LATE_SLOT_MS) {
            this.giveUp([slot]);
            continue;
          }
          return { done: () => this.answered(slot) };
        }
        const now = Date.now();
        if (this.permitBound && (this.nextAt === null || this.nextAt > now + this.options.horizonMs)) {
          // Permits free as answers come, here (which wakes this at once) or at another
          // dispatcher (which writes them within flushMs): ask again soon.
          await Promise.race([sleep(this.options.permitPollMs), new Promise<void>((resolve) => this.freed.push(resolve))]);
        } else if (this.nextAt !== null && this.nextAt > now + this.options.horizonMs) {
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
    if ((this.slots.at(-1)?.at ?? now) - now > half || (this.nextAt !== null && this.nextAt - now > half)) return;
    this.reserving = this.reserve()
      .catch(() => undefined)
      .finally(() => (this.reserving = null));
  }

  /** Whether this lane counts permits: a per-second limit. */
  private get permits(): boolean {
    return this.limits.perSecond !== null && this.limits.perSecond > 0;
  }

  /** The message of a slot was answered: its permit frees one second later (docs/sending-limits.md). */
  private answered(slot: Slot): void {
    if (!this.permits) return;
    this.release([slot]);
    // On the store's clock, late rather than early by however far the offset may be off.
    this.holder.releases.push(Date.now() + this.offsetMs + this.uncertaintyMs + PERMIT_HOLD_MS);
    this.holdsChanged();
    for (const wake of this.freed.splice(0)) wake();
  }

  /**
   * Slots nobody took in time (their jobs ended) are given up, so their permits do not wait
   * for the lease while another dispatcher still sends.
   */
  private sweepLater(): void {
    const last = this.slots.at(-1);
    if (this.sweeping !== null || last === undefined || !this.permits) return;
    this.sweeping = setTimeout(() => {
      this.sweeping = null;
      const now = Date.now();
      const late = this.slots.filter((slot) => now - slot.at > LATE_SLOT_MS);
      this.slots = this.slots.filter((slot) => now - slot.at <= LATE_SLOT_MS);
      this.giveUp(late);
      this.sweepLater();
    }, Math.max(0, last.at + LATE_SLOT_MS + 1 - Date.now()));
    this.sweeping.unref?.();
  }

  /** Slots given up or dropped: nothing was sent on them, so their permits free at once. */
  private giveUp(slots: readonly Slot[]): void {
    if (!this.permits || slots.length === 0) return;
    this.release(slots);
    this.holdsChanged();
  }

  /** The permits of these slots are no longer open. */
  private release(slots: readonly Slot[]): void {
    for (const slot of slots) {
      const i = this.holder.opens.indexOf(slot.booked);
      if (i >= 0) this.holder.opens.splice(i, 1);
    }
  }

  /** The others learn of freed permits by the next reservation, or by a write this soon. */
  private holdsChanged(): void {
    this.holdsSeq++;
    this.scheduleFlush();
    this.keepLeased();
  }

  /** Open permits lapse unless written again within their lease: renewed while any are open. */
  private keepLeased(): void {
    if (this.holder.opens.length === 0 && this.renewing !== null) {
      clearInterval(this.renewing);
      this.renewing = null;
    } else if (this.holder.opens.length > 0 && this.renewing === null) {
      this.renewing = setInterval(() => {
        if (this.renewDue()) this.holdsChanged();
      }, HOLD_LEASE_MS / 6);
      this.renewing.unref?.();
    }
  }

  private scheduleFlush(): void {
    this.flushing ??= setTimeout(() => {
      this.flushing = null;
      if (this.holdsWritten) return;
      void this.change((state, now) => ({ state: { ...state, holds: withHolds(state.holds, this.ownHolds(now), now) }, result: null })).catch(
        () => this.scheduleFlush(),
      );
    }, this.options.flushMs);
    this.flushing.unref?.();
  }

  private get holdsWritten(): boolean {
    return this.writtenSeq === this.holdsSeq;
  }

  private ownHolds(now: number): Holder {
    this.seenSeq = this.holdsSeq;
    this.holder.releases = this.holder.releases.filter((r) => r > now);
    return { id: this.holder.id, opens: [...this.holder.opens], releases: [...this.holder.releases] };
  }

  /**
   * A change of the shared state, which also brings this process's permits up to date there.
   * One at a time: a write must never carry fewer open permits than one before it granted, so
   * `after` books what the change granted before the next change reads this process's permits.
   */
  private change<T>(change: Change<T>, after?: (result: T) => void): Promise<T> {
    const run = this.changing.then(() => this.changeNow(change, after));
    this.changing = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async changeNow<T>(change: Change<T>, after?: (result: T) => void): Promise<T> {
    let wrote = false;
    this.seenSeq = this.writtenSeq;
    const { result, offsetMs, uncertaintyMs } = await this.store.change(this.id, (state, now) => {
      const changed = change(state, now);
      wrote = changed.state !== null;
      return changed;
    });
    this.offsetMs = offsetMs;
    this.uncertaintyMs = uncertaintyMs;
    after?.(result);
    if (wrote && this.permits) {
      this.writtenSeq = this.seenSeq;
      this.lastWrite = Date.now();
      // Answers that came during the round trip are written by the next flush.
      if (!this.holdsWritten) this.scheduleFlush();
    }
    return result;
  }

  /** Open permits lapse unless written again within their lease: renewed while any are open. */
  private renewDue(): boolean {
    return this.holder.opens.length > 0 && Date.now() - this.lastWrite > HOLD_LEASE_MS / 3;
  }

  private async reserve(): Promise<void> {
    const wanted = Math.max(1, Math.min(this.options.maxBatch, this.waiters - this.slots.length));
    const holdsDue = !this.holdsWritten || this.renewDue();
    const result = await this.change(
      (state, now) => {
        const r = reserveSlots(this.limits, state, now, wanted, this.options.horizonMs, this.permits ? this.ownHolds(now) : undefined);
        // Out of permits, the state is written anyway: a write is how this process learns of
        // others' answers (a stale version fails, and the row is read again).
        return { state: r.slots.length > 0 || (this.permits && (holdsDue || r.permitBound)) ? r.state : null, result: r };
      },
      (r) => {
        if (this.permits) this.holder.opens.push(...r.slots);
      },
    );
    this.keepLeased();
    this.state = result.state;
    // A slot is used no earlier than its instant on the store's clock, however far the offset is off.
    this.slots.push(...result.slots.map((booked) => ({ at: booked - this.offsetMs + this.uncertaintyMs, booked })));
    this.sweepLater();
    this.nextAt = result.nextAt === null ? null : result.nextAt - this.offsetMs;
    this.permitBound = result.permitBound;
  }

  /** The server asked to slow down: the shared rate is halved, and slots granted at the old rate go. */
  async throttled(): Promise<void> {
    const observed = this.observedRate(Date.now());
    this.giveUp(this.slots);
    this.slots = [];
    this.nextAt = null;
    this.state = await this.change((state, now) => {
      const next = recordThrottle(this.limits, state, now, observed);
      if (next === state && this.holdsWritten) return { state: null, result: next };
      return { state: this.permits ? { ...next, holds: withHolds(next.holds, this.ownHolds(now), now) } : next, result: next };
    });
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
