import { PermitProfile, withHolds, type Holder, type HoldsByOwner, type SendHolds } from './send-permits';

/**
 * Sending limits of one email server, shared by every dispatcher (docs/sending-limits.md).
 *
 * Two GCRA lanes (generic cell rate algorithm: a theoretical arrival time, `tat`, that each
 * message pushes forward by the lane's interval), and permits:
 * - the short lane spaces slots one interval apart, with no burst, at a little less than the
 *   per-second limit, so the sending is even;
 * - the permits (send-permits.ts) are the per-second guarantee: a slot is granted only where
 *   fewer than L messages occupy every instant from it on, each from its slot to one second after
 *   its answer, so no one-second window at the server holds more than L however late anything runs;
 * - the long lane holds the per-minute, per-hour and per-day limits: a burst of a third of the
 *   limit, then two thirds of it per window, which keeps every sliding window within the limit.
 * A throttling answer caps the short lane adaptively (AIMD: halve, then climb back linearly).
 *
 * Times are milliseconds on the database's clock; nothing here reads a clock.
 */

export interface SendLimits {
  perSecond: number | null;
  perMinute: number | null;
  perHour: number | null;
  perDay: number | null;
}

export interface SendRateState {
  /** Short lane: the earliest instant of the next message. */
  tat: number;
  /** Long lane's theoretical arrival time. */
  longTat: number;
  /** Adaptive cap (messages per second) set by the last throttling answer; null: none. */
  throttleRate: number | null;
  /** The rate at which the cap lifts again. */
  throttleCeiling: number | null;
  throttledAt: number | null;
  /** Permits of the per-second limit, by dispatcher. */
  holds: HoldsByOwner;
}

export const FRESH_SEND_RATE_STATE: SendRateState = {
  tat: 0,
  longTat: 0,
  throttleRate: null,
  throttleCeiling: null,
  throttledAt: null,
  holds: {},
};

/**
 * Of a per-second limit L, 0.995·L per second is scheduled: the slots alone then keep every
 * one-second window within L (with room for rounding), and the permits, which hold each
 * message until a second after its answer, set the pace once answers take time.
 */
export const SECOND_SHARE = 0.995;
/**
 * A slot reached later than this is given up. Per second the permits hold however late a slot
 * is used; the long lanes give up this much of their burst tolerance for it.
 */
export const LATE_SLOT_MS = 1000;

export function scheduledRate(perSecond: number): number {
  return perSecond * SECOND_SHARE;
}
/** Long lanes: burst tolerance as a share of the window (β); the steady rate is L / (1 + β). */
export const LONG_BURST_SHARE = 0.5;
/** AIMD: a throttling answer multiplies the rate by this... */
export const THROTTLE_DECREASE = 0.5;
/** ...then it climbs back by this share of the ceiling per second. */
export const THROTTLE_RECOVERY_PER_SECOND = 0.05;
/** The adaptive cap never goes below this (messages per second). */
export const THROTTLE_MIN_RATE = 0.5;
/** Answers within this long after a decrease are the same episode: no second decrease. */
export const THROTTLE_REACTION_MS = 1000;

const WINDOWS = [
  ['perMinute', 60_000],
  ['perHour', 3_600_000],
  ['perDay', 86_400_000],
] as const;

const positive = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0;

export function hasSendLimits(limits: SendLimits): boolean {
  return positive(limits.perSecond) || WINDOWS.some(([key]) => positive(limits[key]));
}

/** The adaptive cap in force at `now`, or null once it has climbed back to its ceiling. */
export function adaptiveRate(state: SendRateState, now: number): number | null {
  if (state.throttleRate === null || state.throttledAt === null || state.throttleCeiling === null) return null;
  const climbed = state.throttleRate + (Math.max(0, now - state.throttledAt) / 1000) * THROTTLE_RECOVERY_PER_SECOND * state.throttleCeiling;
  return climbed >= state.throttleCeiling ? null : climbed;
}

/** Messages per second the short lane allows at `now`; null: unbounded. */
export function shortLaneRate(limits: SendLimits, state: SendRateState, now: number): number | null {
  const configured = positive(limits.perSecond) ? scheduledRate(limits.perSecond) : null;
  const adaptive = adaptiveRate(state, now);
  if (configured === null) return adaptive;
  return adaptive === null ? configured : Math.min(configured, adaptive);
}

/**
 * The long lane: interval and burst tolerance (ms) that keep each window within its limit, even
 * when each message goes up to `lateMs` after its slot.
 */
export function longLane(limits: SendLimits, lateMs = 0): { interval: number; tolerance: number } | null {
  const set = WINDOWS.filter(([key]) => positive(limits[key])).map(([key, window]) => ({ limit: limits[key]!, window }));
  if (set.length === 0) return null;
  // Per window: T = W(1+β)/L. One lane for all: the largest T, and the smallest tolerance τ
  // with (W + τ) / T <= L for every window, so no window of W holds more than L.
  const interval = Math.max(...set.map(({ limit, window }) => (window * (1 + LONG_BURST_SHARE)) / limit));
  const tolerance = Math.min(...set.map(({ limit, window }) => limit * interval - window));
  return { interval, tolerance: Math.max(0, tolerance - lateMs) };
}

export interface Reservation {
  /** The instants of the slots granted, in order; each may carry one message. */
  slots: number[];
  state: SendRateState;
  /** When fewer slots than wanted were granted: the earliest instant of the next one, if known. */
  nextAt: number | null;
  /** Fewer slots than wanted for want of permits: they free as answers come, ask again soon. */
  permitBound: boolean;
}

/**
 * Reserves up to `wanted` slots, from `earliest` on and no later than `now + horizonMs`, each used at most LATE_SLOT_MS
 * late. With a per-second limit, `holder` is the dispatcher asking: each slot also takes one of
 * its permits, and its holds are written with the answer.
 */
export function reserveSlots(
  limits: SendLimits,
  state: SendRateState,
  now: number,
  wanted: number,
  horizonMs: number,
  holder?: Holder,
  /** No slot before this (the answer takes a while to reach the holder): a permit is held from its slot. */
  earliest = now,
): Reservation {
  const rate = shortLaneRate(limits, state, now);
  const shortInterval = rate === null ? 0 : 1000 / rate;
  const long = longLane(limits, LATE_SLOT_MS);
  const permits = positive(limits.perSecond) && holder !== undefined ? limits.perSecond : null;
  // The holder's own open permits last until it answers them, whatever its lease says.
  const mine: SendHolds | null = holder ? { opens: [...holder.opens], until: Infinity, releases: [...holder.releases] } : null;
  const profile = permits === null ? null : new PermitProfile({ ...state.holds, [holder!.id]: mine! });
  let { tat, longTat } = state;
  const slots: number[] = [];
  const answer = (nextAt: number | null, permitBound: boolean): Reservation => ({
    slots,
    state: { ...state, tat, longTat, holds: holder ? withHolds(state.holds, { ...holder, opens: [...holder.opens, ...slots] }, now) : state.holds },
    nextAt,
    permitBound,
  });
  for (let i = 0; i < wanted; i++) {
    let at = Math.max(now, earliest);
    if (shortInterval > 0) at = Math.max(at, tat);
    if (long !== null) at = Math.max(at, longTat - long.tolerance);
    if (profile !== null) {
      // The slots granted so far are held from instants before `at`: they count from it on.
      const free = profile.firstFree(at, slots.length, permits!);
      if (free === null) return answer(null, true);
      if (free > now + horizonMs) return answer(free, true);
      at = free;
    }
    if (at > now + horizonMs) return answer(at, false);
    slots.push(at);
    if (shortInterval > 0) tat = at + shortInterval;
    if (long !== null) longTat = Math.max(longTat, at) + long.interval;
  }
  return answer(null, false);
}

/**
 * A throttling answer at `now`: the short lane's rate is halved (from what was in force, or from
 * `observedRate` on a server without a per-second limit) and its next slot moves one new
 * interval away. Answers within THROTTLE_REACTION_MS of the last decrease change nothing: they
 * are the same episode, sent before the decrease took effect.
 */
export function recordThrottle(limits: SendLimits, state: SendRateState, now: number, observedRate: number): SendRateState {
  if (state.throttledAt !== null && now - state.throttledAt < THROTTLE_REACTION_MS && adaptiveRate(state, now) !== null) return state;
  const configured = positive(limits.perSecond) ? scheduledRate(limits.perSecond) : null;
  const current = shortLaneRate(limits, state, now) ?? Math.max(observedRate, THROTTLE_MIN_RATE);
  const ceiling = configured ?? Math.max(state.throttleCeiling ?? 0, current);
  const rate = Math.max(THROTTLE_MIN_RATE, current * THROTTLE_DECREASE);
  return { ...state, throttleRate: rate, throttleCeiling: ceiling, throttledAt: now, tat: Math.max(state.tat, now + 1000 / rate) };
}

/** Whether the gate must consult the shared state before each message to this server. */
export function isRateBound(limits: SendLimits, state: SendRateState, now: number): boolean {
  return hasSendLimits(limits) || adaptiveRate(state, now) !== null;
}

/**
 * A temporary answer that asks the sender to slow down (SES: `454 Throttling failure`): 421,
 * 451 or 454 whose text speaks of throttling, rates or quotas. Never a bounce, never a failure.
 */
export function isThrottlingReply(code: number | null, message: string): boolean {
  if (code !== 421 && code !== 451 && code !== 454) return false;
  return /throttl|\brate\b|rate[ -]?limit|too many|slow down|quota|exceeded/i.test(message);
}

/**
 * Which server takes the next message: the one whose capacity frees first (smallest wait);
 * among equals, the turn decides, so equal servers take turns.
 */
export function pickServer(waits: readonly number[], turn: number): number {
  if (waits.length === 0) return -1;
  const least = Math.min(...waits);
  const tied = waits.flatMap((w, i) => (w <= least ? [i] : []));
  return tied[Math.abs(turn) % tied.length]!;
}
