import {
  adaptiveRate,
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
import { MessageWithdrawn, type Cancel, type SendRateStore, type Timers } from './ports';
import type { Change, Slot, SlotTicket } from './slot';
import type { GateOptions } from './gate-options';
import { ServerReach } from './server-reach';
import { until } from './withdrawable-wait';

/** The lane's own timers: none of them keeps the process alive. */
const WEAK = { weak: true };
const NOT_HELD: SlotTicket = { done: () => undefined };

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
  /** How long a reservation takes to come back (moving average). */
  private tripMs = 0;
  private uncertaintyMs = 0;
  /** Granted slots in order: when to use each on this process's clock, and its instant on the store's. */
  private slots: Slot[] = [];
  private nextAt: number | null = null;
  private permitBound = false;
  private waiters = 0;
  private reserving: Promise<void> | null = null;
  /** This process's permits (docs/sending-limits.md): open messages, and releases on the store's clock. */
  private readonly holder: { id: string; opens: number[]; releases: number[] };
  /** Changes to this process's permits, and how many of them the store has. */
  private holdsSeq = 0;
  private writtenSeq = 0;
  private seenSeq = 0;
  private lastWrite = 0;
  private flushing: Cancel | null = null;
  private renewing: Cancel | null = null;
  private sweeping: Cancel | null = null;
  private changing: Promise<void> = Promise.resolve();
  /** Workers waiting for one of this process's permits to be freed. */
  private freed: Array<() => void> = [];

  /** Whether the server answers, and how fast this process has been sending to it. */
  readonly reach: ServerReach;

  /** @param holderId names this process's permits in the shared state */
  constructor(
    readonly id: number,
    private readonly store: SendRateStore,
    private readonly options: GateOptions,
    private readonly timers: Timers,
    holderId: string,
  ) {
    this.reach = new ServerReach(options.backoffMs);
    this.holder = { id: holderId, opens: [], releases: [] };
  }

  /** Whether sending through this server needs slots (limits, or a throttling cap in force). */
  bound(now: number): boolean {
    return isRateBound(this.limits, this.state, now + this.offsetMs);
  }

  /** Whether a throttling answer's cap is in force: then a message's envelope waits for its slot too. */
  throttledNow(now: number): boolean {
    return adaptiveRate(this.state, now + this.offsetMs) !== null;
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
  async acquire(signal?: AbortSignal): Promise<SlotTicket | { defer: number }> {
    if (!this.bound(this.timers.now())) return NOT_HELD;
    if (!this.permits) return this.acquireSlot(signal);
    // Beyond the mailer's connections a message would wait in its queue holding a permit: it
    // waits here instead, before it takes a slot.
    while (this.active >= this.room) {
      let wake!: () => void;
      const woken = new Promise<void>((resolve) => this.roomWaiters.push((wake = resolve)));
      try {
        await until(woken, signal);
      } catch (error) {
        // Withdrawn while waiting: its turn is not taken from the next one.
        this.roomWaiters = this.roomWaiters.filter((w) => w !== wake);
        throw error;
      }
    }
    this.active++;
    const leave = () => {
      this.active--;
      this.roomWaiters.shift()?.();
    };
    try {
      const slot = await this.acquireSlot(signal);
      if ('defer' in slot) {
        leave();
        return slot;
      }
      return {
        clearance: slot.clearance,
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

  private async acquireSlot(signal?: AbortSignal): Promise<SlotTicket | { defer: number }> {
    this.waiters++;
    try {
      for (;;) {
        if (signal?.aborted === true) throw new MessageWithdrawn();
        const slot = this.slots.shift();
        if (slot !== undefined) {
          this.reserveAhead();
          const wait = slot.at - this.lead() - this.timers.now();
          if (wait > 0) {
            try {
              await until(this.timers.sleep(wait), signal);
            } catch (error) {
              // Withdrawn before its slot: the slot goes unused and its permit frees.
              this.giveUp([slot]);
              throw error;
            }
          }
          if (this.timers.now() - slot.at > LATE_SLOT_MS) {
            this.giveUp([slot]);
            continue;
          }
          return this.ticket(slot, signal);
        }
        const now = this.timers.now();
        if (this.permitBound && (this.nextAt === null || this.nextAt > now + this.options.horizonMs)) {
          // Permits free as answers come, here (which wakes this at once) or at another
          // dispatcher (which writes them within flushMs): ask again soon.
          await until(Promise.race([this.timers.sleep(this.options.permitPollMs), new Promise<void>((resolve) => this.freed.push(resolve))]), signal);
        } else if (this.nextAt !== null && this.nextAt > now + this.options.horizonMs) {
          if (this.nextAt - now > this.options.deferBeyondMs) return { defer: this.nextAt };
          // Ask again once half a horizon of slots is to be had, not a slot at a time.
          await until(this.timers.sleep(this.nextAt - this.options.horizonMs / 2 - now), signal);
        }
        await (this.reserving ??= this.reserve().finally(() => (this.reserving = null)));
      }
    } finally {
      this.waiters--;
    }
  }

  /**
   * How long before its slot a message starts: the configured lead, but no more than half of what
   * this process's room allows at the server's rate, so that starting early never costs rate.
   */
  private lead(): number {
    const perSecond = this.limits.perSecond;
    if (perSecond === null || perSecond <= 0 || !Number.isFinite(this.room)) return this.options.leadMs;
    return Math.min(this.options.leadMs, (500 * this.room) / perSecond);
  }

  /**
   * The content waits for the slot's instant. The permit frees a second after the answer if the
   * content went (the server may have taken the message), at once if it never did.
   */
  private ticket(slot: Slot, signal: AbortSignal | undefined): SlotTicket {
    let cleared = false;
    return {
      clearance: async () => {
        const wait = slot.at - this.timers.now();
        if (wait > 0) await until(this.timers.sleep(wait), signal);
        cleared = true;
      },
      done: () => (cleared ? this.answered(slot) : this.giveUp([slot])),
    };
  }

  /**
   * While workers wait beyond the slots in hand and those run out within half a horizon, the
   * next batch is reserved already: it then arrives before its first slot, not after it.
   */
  private reserveAhead(): void {
    if (this.reserving !== null || this.waiters <= this.slots.length) return;
    const now = this.timers.now();
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
    this.holder.releases.push(this.timers.now() + this.offsetMs + this.uncertaintyMs + PERMIT_HOLD_MS);
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
    const wait = Math.max(0, last.at + LATE_SLOT_MS + 1 - this.timers.now());
    this.sweeping = this.timers.after(
      wait,
      () => {
        this.sweeping = null;
        const now = this.timers.now();
        const late = this.slots.filter((slot) => now - slot.at > LATE_SLOT_MS);
        this.slots = this.slots.filter((slot) => now - slot.at <= LATE_SLOT_MS);
        this.giveUp(late);
        this.sweepLater();
      },
      WEAK,
    );
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
      this.renewing();
      this.renewing = null;
    } else if (this.holder.opens.length > 0 && this.renewing === null) {
      this.renewing = this.timers.every(
        HOLD_LEASE_MS / 6,
        () => {
          if (this.renewDue()) this.holdsChanged();
        },
        WEAK,
      );
    }
  }

  private scheduleFlush(): void {
    this.flushing ??= this.timers.after(
      this.options.flushMs,
      () => {
        this.flushing = null;
        if (this.holdsWritten) return;
        void this.change((state, now) => ({ state: { ...state, holds: withHolds(state.holds, this.ownHolds(now), now) }, result: null })).catch(() =>
          this.scheduleFlush(),
        );
      },
      WEAK,
    );
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
      this.lastWrite = this.timers.now();
      // Answers that came during the round trip are written by the next flush.
      if (!this.holdsWritten) this.scheduleFlush();
    }
    return result;
  }

  /** Open permits lapse unless written again within their lease: renewed while any are open. */
  private renewDue(): boolean {
    return this.holder.opens.length > 0 && this.timers.now() - this.lastWrite > HOLD_LEASE_MS / 3;
  }

  private async reserve(): Promise<void> {
    const wanted = Math.max(1, Math.min(this.options.maxBatch, this.waiters - this.slots.length));
    const holdsDue = !this.holdsWritten || this.renewDue();
    const started = this.timers.now();
    const trip = Math.min(this.tripMs, this.options.horizonMs / 4);
    const result = await this.change(
      (state, now) => {
        const holder = this.permits ? this.ownHolds(now) : undefined;
        // A slot granted for now would reach this process already past, its permit held meanwhile.
        const r = reserveSlots(this.limits, state, now, wanted, this.options.horizonMs, holder, now + trip);
        // Out of permits, the state is written anyway: a write is how this process learns of
        // others' answers (a stale version fails, and the row is read again).
        return { state: r.slots.length > 0 || (this.permits && (holdsDue || r.permitBound)) ? r.state : null, result: r };
      },
      (r) => {
        if (this.permits) this.holder.opens.push(...r.slots);
      },
    );
    this.tripMs = 0.8 * this.tripMs + 0.2 * (this.timers.now() - started);
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
    const observed = this.reach.observedRate(this.timers.now());
    this.giveUp(this.slots);
    this.slots = [];
    this.nextAt = null;
    this.state = await this.change((state, now) => {
      const next = recordThrottle(this.limits, state, now, observed);
      if (next === state && this.holdsWritten) return { state: null, result: next };
      return { state: this.permits ? { ...next, holds: withHolds(next.holds, this.ownHolds(now), now) } : next, result: next };
    });
  }
}
