import { DomainError } from './errors';
import { percentage } from './statistics';

/** The spec's "Broadcast status" table, in lifecycle order. */
export const BROADCAST_STATUSES = [
  'draft',
  'future_scheduled',
  'scheduled',
  'queueing',
  'sending',
  'sent',
  'failed',
  'partial_failure',
  'aborted',
  'paused',
] as const;

export type BroadcastStatus = (typeof BROADCAST_STATUSES)[number];

/**
 * What moves a broadcast: an API call (send, schedule, cancel_schedule, pause, resume, abort)
 * or the dispatcher (due, queue, start_sending, finish).
 */
export type BroadcastTrigger = 'send' | 'schedule' | 'cancel_schedule' | 'due' | 'queue' | 'start_sending' | 'finish' | 'pause' | 'resume' | 'abort';

export type BroadcastTransition = {
  readonly from: BroadcastStatus;
  readonly to: BroadcastStatus;
  readonly trigger: BroadcastTrigger;
};

/**
 * Every allowed move. The spec shows send, schedule and cancel; the rest are docs/broadcasts-and-sending.md
 * §Broadcasts decisions (dispatcher path future_scheduled → scheduled → queueing → sending →
 * sent / partial_failure / failed, and the pause/resume/abort routes). Terminal statuses
 * (sent, partial_failure, aborted) have no way out; failed only through a new send.
 */
export const BROADCAST_TRANSITIONS: readonly BroadcastTransition[] = [
  { from: 'draft', to: 'scheduled', trigger: 'send' },
  { from: 'failed', to: 'scheduled', trigger: 'send' },
  { from: 'draft', to: 'future_scheduled', trigger: 'schedule' },
  { from: 'future_scheduled', to: 'future_scheduled', trigger: 'schedule' },
  { from: 'future_scheduled', to: 'draft', trigger: 'cancel_schedule' },
  { from: 'future_scheduled', to: 'scheduled', trigger: 'due' },
  { from: 'scheduled', to: 'queueing', trigger: 'queue' },
  { from: 'queueing', to: 'sending', trigger: 'start_sending' },
  { from: 'sending', to: 'sent', trigger: 'finish' },
  { from: 'sending', to: 'partial_failure', trigger: 'finish' },
  { from: 'sending', to: 'failed', trigger: 'finish' },
  { from: 'scheduled', to: 'paused', trigger: 'pause' },
  { from: 'queueing', to: 'paused', trigger: 'pause' },
  { from: 'sending', to: 'paused', trigger: 'pause' },
  // Resume returns to the stage the broadcast was paused in (sending when unknown).
  { from: 'paused', to: 'scheduled', trigger: 'resume' },
  { from: 'paused', to: 'queueing', trigger: 'resume' },
  { from: 'paused', to: 'sending', trigger: 'resume' },
  { from: 'future_scheduled', to: 'aborted', trigger: 'abort' },
  { from: 'scheduled', to: 'aborted', trigger: 'abort' },
  { from: 'queueing', to: 'aborted', trigger: 'abort' },
  { from: 'sending', to: 'aborted', trigger: 'abort' },
  { from: 'paused', to: 'aborted', trigger: 'abort' },
];

export function canTransition(from: BroadcastStatus, to: BroadcastStatus): boolean {
  return BROADCAST_TRANSITIONS.some((t) => t.from === from && t.to === to);
}

function allowedByTrigger(trigger: BroadcastTrigger, from: BroadcastStatus): boolean {
  return BROADCAST_TRANSITIONS.some((t) => t.trigger === trigger && t.from === from);
}

// Spec, Broadcast status table: PATCH and DELETE only in draft or future_scheduled.
const EDITABLE_STATUSES: readonly BroadcastStatus[] = ['draft', 'future_scheduled'];

export function assertCanUpdate(status: BroadcastStatus): void {
  if (!EDITABLE_STATUSES.includes(status)) {
    throw new DomainError('broadcast_not_updatable', 'Broadcast cannot be updated in current status');
  }
}

export function assertCanDelete(status: BroadcastStatus): void {
  if (!EDITABLE_STATUSES.includes(status)) {
    throw new DomainError('broadcast_not_deletable', 'Broadcast cannot be deleted in current status');
  }
}

function isBlank(s: string | null | undefined): boolean {
  return s == null || s.trim() === '';
}

export type PlanSendInput = {
  status: BroadcastStatus;
  subject: string | null;
  body: string | null;
  htmlBody?: string | null;
  emailServerCount: number;
};

/**
 * Spec "Send prerequisites", checked in the order the spec lists them (status, email server,
 * subject and body), so a broadcast that fails several of them always gets the same message.
 */
export function planSend(input: PlanSendInput): 'scheduled' {
  if (!allowedByTrigger('send', input.status)) {
    throw new DomainError('broadcast_not_sendable_status', 'Broadcast can only be sent from draft or failed status');
  }
  if (!(input.emailServerCount > 0)) {
    throw new DomainError('smtp_not_configured', 'SMTP settings are not configured, please check your settings');
  }
  // A broadcast written only as raw HTML has a body too.
  if (isBlank(input.subject) || (isBlank(input.body) && isBlank(input.htmlBody))) {
    throw new DomainError('broadcast_not_ready', 'Broadcast is not ready to send');
  }
  return 'scheduled';
}

/**
 * docs/broadcasts-and-sending.md: schedule from draft, or from future_scheduled as a reschedule. Checked
 * on its own first, so a refused status wins over whatever the parameters say.
 */
export function assertCanSchedule(status: BroadcastStatus): void {
  if (!allowedByTrigger('schedule', status)) {
    throw new DomainError('broadcast_not_schedulable', 'Broadcast cannot be scheduled in current status');
  }
}

/** docs/broadcasts-and-sending.md: schedule from draft, or from future_scheduled as a reschedule. */
export function planSchedule(input: { status: BroadcastStatus; scheduledSendAt: Date; now: Date }): 'future_scheduled' {
  assertCanSchedule(input.status);
  if (Number.isNaN(input.scheduledSendAt.getTime())) {
    throw new DomainError('invalid_scheduled_time', 'Scheduled send time is invalid');
  }
  if (!(input.scheduledSendAt.getTime() > input.now.getTime())) {
    throw new DomainError('scheduled_time_not_future', 'Scheduled send time must be in the future');
  }
  return 'future_scheduled';
}

export function planCancelSchedule(status: BroadcastStatus): 'draft' {
  if (!allowedByTrigger('cancel_schedule', status)) {
    throw new DomainError('broadcast_not_scheduled', 'Broadcast is not scheduled');
  }
  return 'draft';
}

export function planPause(status: BroadcastStatus): 'paused' {
  if (!allowedByTrigger('pause', status)) {
    throw new DomainError('broadcast_not_pausable', 'Broadcast cannot be paused in current status');
  }
  return 'paused';
}

/** The stages a broadcast can be paused in, and so resumed to. */
export type PausableStatus = 'scheduled' | 'queueing' | 'sending';

/**
 * Resume goes back to the stage the broadcast was paused in, so the sending pipeline picks up
 * where it stopped (a broadcast paused before its recipients were built must still build them).
 * With that stage unknown it goes to sending, where the pipeline continues idempotently.
 */
export function planResume(status: BroadcastStatus, pausedFrom?: BroadcastStatus | null): PausableStatus {
  if (!allowedByTrigger('resume', status)) {
    throw new DomainError('broadcast_not_resumable', 'Broadcast cannot be resumed in current status');
  }
  return pausedFrom === 'scheduled' || pausedFrom === 'queueing' ? pausedFrom : 'sending';
}

export function planAbort(status: BroadcastStatus): 'aborted' {
  if (!allowedByTrigger('abort', status)) {
    throw new DomainError('broadcast_not_abortable', 'Broadcast cannot be aborted in current status');
  }
  return 'aborted';
}

/**
 * docs/broadcasts-and-sending.md "Final status": sent when nothing failed (a broadcast with no
 * recipients is therefore sent), failed when nothing was accepted, otherwise partial_failure.
 */
export function finalStatus(outcome: { accepted: number; failed: number }): 'sent' | 'partial_failure' | 'failed' {
  if (outcome.failed <= 0) return 'sent';
  if (outcome.accepted <= 0) return 'failed';
  return 'partial_failure';
}

/**
 * The broadcast's percentage_complete: processed recipients over total_recipients, 0–100 with
 * two decimals. With total 0 (recipients not yet counted, before queueing) it is 0, not 100,
 * so a broadcast never looks finished before it has started.
 */
export function percentageComplete(processed: number, total: number): number {
  return percentage(processed, total);
}

// ---------------------------------------------------------------------------------------------
// Scheduled time (docs/broadcasts-and-sending.md: without an offset, scheduled_send_at is wall-clock time in
// scheduled_timezone; with an offset or Z it is an absolute instant).

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    // Keyed by the caller's spelling (names are case-insensitive), so bound the cache against
    // a client cycling through spellings.
    if (formatters.size >= 512) formatters.clear();
    formatters.set(timezone, f);
  }
  return f;
}

/**
 * True for a time zone name Intl knows (IANA names and their aliases, case-insensitive).
 * Offset strings such as "+01:00" are refused: the spec asks for an IANA name.
 */
export function isValidTimezone(tz: string): boolean {
  if (typeof tz !== 'string' || tz.trim() === '' || /^[+-]/.test(tz)) return false;
  try {
    formatterFor(tz);
    return true;
  } catch {
    return false;
  }
}

/** Milliseconds since the epoch of a proleptic-Gregorian UTC wall-clock (years 0–99 included). */
function utcMs(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): number {
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, s, ms);
  return t.getTime();
}

/** Offset of `timezone` from UTC at `instantMs`, in milliseconds (east positive). */
export function offsetAt(timezone: string, instantMs: number): number {
  const wholeSecond = Math.floor(instantMs / 1000) * 1000;
  const parts: Record<string, string> = {};
  for (const p of formatterFor(timezone).formatToParts(new Date(wholeSecond))) parts[p.type] = p.value;
  const yearOfEra = Number(parts.year);
  const year = parts.era === 'BC' || parts.era === 'B' ? 1 - yearOfEra : yearOfEra;
  const hour = Number(parts.hour) % 24;
  const local = utcMs(year, Number(parts.month), Number(parts.day), hour, Number(parts.minute), Number(parts.second), 0);
  return local - wholeSecond;
}

/**
 * The instant at which the wall clock of `timezone` shows `localMs` (a wall-clock time encoded
 * as if it were UTC). Disambiguation follows Temporal's "compatible", java.time and Luxon:
 * - in a DST gap (the wall time never happens) the time moves forward by the gap's length,
 *   so 02:30 on 2026-03-29 in Europe/Berlin becomes 03:30 CEST (01:30Z);
 * - in an overlap (the wall time happens twice) the earlier instant wins, so 02:30 on
 *   2026-10-25 in Europe/Berlin is 02:30 CEST (00:30Z).
 */
export function wallClockToInstant(localMs: number, timezone: string): number {
  const DAY = 86_400_000;
  const before = offsetAt(timezone, localMs - DAY);
  const after = offsetAt(timezone, localMs + DAY);
  const candidates = [...new Set([before, after])]
    .map((offset) => localMs - offset)
    .filter((instant) => instant + offsetAt(timezone, instant) === localMs)
    .sort((a, b) => a - b);
  const first = candidates[0];
  if (first !== undefined) return first;
  // Gap: read the wall time with the offset in force before the transition.
  return localMs - before;
}

const ISO_DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

function daysInMonth(year: number, month: number): number {
  return new Date(utcMs(year, month + 1, 0, 0, 0, 0, 0)).getUTCDate();
}

/**
 * Resolves the schedule's `scheduled_send_at` (ISO 8601: date, optional time, optional
 * fraction, optional `Z` or ±hh[:mm] offset) against `scheduled_timezone`. A date without a
 * time is midnight. The timezone is validated even when the input carries an offset, because
 * it is stored and echoed with the broadcast.
 */
export function resolveScheduledSendAt(input: string, timezone: string): Date {
  if (!isValidTimezone(timezone)) {
    throw new DomainError('invalid_timezone', 'Scheduled timezone is invalid');
  }
  const invalid = (): DomainError => new DomainError('invalid_scheduled_time', 'Scheduled send time is invalid');
  const m = typeof input === 'string' ? ISO_DATETIME.exec(input.trim()) : null;
  if (!m) throw invalid();

  const [, ys, mos, ds, hs, mis, ss, frac, zone] = m;
  const year = Number(ys);
  const month = Number(mos);
  const day = Number(ds);
  const hour = Number(hs ?? 0);
  const minute = Number(mis ?? 0);
  const second = Number(ss ?? 0);
  const millis = Number((frac ?? '').padEnd(3, '0').slice(0, 3));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) {
    throw invalid();
  }
  const localMs = utcMs(year, month, day, hour, minute, second, millis);

  if (zone === undefined) return new Date(wallClockToInstant(localMs, timezone));
  if (zone === 'Z' || zone === 'z') return new Date(localMs);
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const offHours = Number(digits.slice(0, 2));
  const offMinutes = Number(digits.slice(2) || '0');
  if (offHours > 23 || offMinutes > 59) throw invalid();
  return new Date(localMs - sign * (offHours * 60 + offMinutes) * 60_000);
}
