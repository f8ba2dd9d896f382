import { percentage } from './statistics';

/**
 * The reputation guard (docs/reputation-guard.md): per channel, the limits past which a sending
 * broadcast pauses itself and an email server leaves rotation.
 */
export interface ReputationGuardSettings {
  enabled: boolean;
  /** Nothing is judged before this many emails were handed over (too few to mean anything). */
  min_sent: number;
  /** Percent, 0..100: hard bounces over emails handed over. */
  max_hard_bounce_rate: number;
  /** Percent, 0..100: complaints over emails handed over. */
  max_complaint_rate: number;
}

/** docs/reputation-guard.md's defaults: providers suspend at a few percent of hard bounces or 0.1% complaints. */
export const DEFAULT_REPUTATION_GUARD: Readonly<ReputationGuardSettings> = Object.freeze({
  enabled: true,
  min_sent: 500,
  max_hard_bounce_rate: 5,
  max_complaint_rate: 0.1,
});

const KEYS = ['enabled', 'min_sent', 'max_hard_bounce_rate', 'max_complaint_rate'] as const;

/** The stored keys over the defaults: a default changed later reaches every channel that never set it. */
export function resolveReputationGuard(stored: Partial<ReputationGuardSettings> | null | undefined): ReputationGuardSettings {
  return { ...DEFAULT_REPUTATION_GUARD, ...pick(stored ?? {}) };
}

function pick(value: Partial<ReputationGuardSettings>): Partial<ReputationGuardSettings> {
  const out: Partial<ReputationGuardSettings> = {};
  for (const key of KEYS) if (value[key] !== undefined) (out as Record<string, unknown>)[key] = value[key];
  return out;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isRate = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 100;

/**
 * Checks a written `reputation_guard` (any subset of its keys). Types are strict, as every write
 * of the API's: no string-to-number coercion. Answers the keys to merge, the errors by field
 * (`reputation_guard.min_sent`), and the keys it does not know (warned about, not refused).
 */
export function checkReputationGuard(input: unknown): { patch: Partial<ReputationGuardSettings>; errors: Record<string, string[]>; unknown: string[] } {
  const errors: Record<string, string[]> = {};
  const patch: Partial<ReputationGuardSettings> = {};
  if (!isObject(input)) return { patch, errors: { reputation_guard: ['must be an object'] }, unknown: [] };
  const fail = (key: string, message: string) => (errors[`reputation_guard.${key}`] ??= []).push(message);
  if (input.enabled !== undefined) {
    if (typeof input.enabled === 'boolean') patch.enabled = input.enabled;
    else fail('enabled', 'must be a boolean');
  }
  if (input.min_sent !== undefined) {
    const v = input.min_sent;
    if (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 1_000_000_000) patch.min_sent = v;
    else fail('min_sent', 'must be an integer of at least 1');
  }
  for (const key of ['max_hard_bounce_rate', 'max_complaint_rate'] as const) {
    if (input[key] === undefined) continue;
    if (isRate(input[key])) patch[key] = input[key] as number;
    else fail(key, 'must be a number from 0 to 100');
  }
  const unknown = Object.keys(input).filter((k) => !(KEYS as readonly string[]).includes(k));
  return { patch, errors, unknown };
}

/** What the guard counts, for a broadcast or for a server over the last 24 h. */
export interface ReputationCounts {
  sent: number;
  hard_bounces: number;
  complaints: number;
}

export type PauseReason = 'hard_bounce_rate' | 'complaint_rate';

/** Why the guard stopped something, with the figures the `broadcast.paused` event carries. */
export interface ReputationVerdict extends ReputationCounts {
  reason: PauseReason;
  hard_bounce_rate: number;
  complaint_rate: number;
  /** The limit crossed, in percent. */
  limit: number;
}

/**
 * Whether the counts cross a limit (docs/reputation-guard.md): only when enabled and once at least
 * `min_sent` emails were handed over; a rate strictly above its limit crosses it (at 5% of 5%
 * nothing happens). Hard bounces are judged first: they are what providers suspend for first.
 * Rates are exact here; the event rounds them to two decimals as statistics do.
 */
export function reputationVerdict(settings: ReputationGuardSettings, counts: ReputationCounts): ReputationVerdict | null {
  if (!settings.enabled || counts.sent < settings.min_sent || counts.sent <= 0) return null;
  const figures = {
    ...counts,
    hard_bounce_rate: percentage(counts.hard_bounces, counts.sent),
    complaint_rate: percentage(counts.complaints, counts.sent),
  };
  if (counts.hard_bounces * 100 > settings.max_hard_bounce_rate * counts.sent) {
    return { ...figures, reason: 'hard_bounce_rate', limit: settings.max_hard_bounce_rate };
  }
  if (counts.complaints * 100 > settings.max_complaint_rate * counts.sent) {
    return { ...figures, reason: 'complaint_rate', limit: settings.max_complaint_rate };
  }
  return null;
}
