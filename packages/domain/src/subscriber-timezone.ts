import { isValidTimezone, offsetAt, wallClockToInstant } from './broadcast';

// Sending in each subscriber's time zone (docs/broadcasts-and-sending.md, "Send in each
// subscriber's time zone"): the broadcast's scheduled_send_at names a wall-clock time, read in
// scheduled_timezone; each recipient gets that wall-clock time in their own zone.

const HOUR = 3_600_000;

/** The furthest offsets any IANA zone has used: UTC+14 (Pacific/Kiritimati) and UTC−12. */
export const EARLIEST_OFFSET_MS = 14 * HOUR;
export const LATEST_OFFSET_MS = 12 * HOUR;

/** The wall-clock time (encoded as if UTC) that `scheduledAt` shows in `scheduledTimezone`. */
export function scheduledWallClock(scheduledAt: Date, scheduledTimezone: string): number {
  const instant = scheduledAt.getTime();
  return instant + offsetAt(scheduledTimezone, instant);
}

/**
 * The zone a subscriber's email is timed by: their `custom_data.timezone` when it is a string
 * naming a zone Intl knows (IANA names and aliases, case-insensitive), else the broadcast's.
 */
export function recipientTimezone(subscriberTimezone: unknown, scheduledTimezone: string): string {
  return typeof subscriberTimezone === 'string' && isValidTimezone(subscriberTimezone.trim()) ? subscriberTimezone.trim() : scheduledTimezone;
}

/**
 * The instant a subscriber's email goes: the schedule's wall-clock time in their zone. A
 * wall-clock time the zone skips (a daylight-saving gap) moves forward by the gap; one it shows
 * twice (an overlap) is the earlier instant, as scheduled broadcasts are read (wallClockToInstant).
 */
export function subscriberSendInstant(scheduledAt: Date, scheduledTimezone: string, subscriberTimezone: unknown): Date {
  const wall = scheduledWallClock(scheduledAt, scheduledTimezone);
  return new Date(wallClockToInstant(wall, recipientTimezone(subscriberTimezone, scheduledTimezone)));
}

/**
 * The window every recipient's instant falls in: from the wall-clock time at UTC+14 to the same
 * at UTC−12, 26 hours. The broadcast starts (is queued) at its beginning.
 */
export function timezoneSendWindow(scheduledAt: Date, scheduledTimezone: string): { start: Date; end: Date } {
  const wall = scheduledWallClock(scheduledAt, scheduledTimezone);
  return { start: new Date(wall - EARLIEST_OFFSET_MS), end: new Date(wall + LATEST_OFFSET_MS) };
}

/**
 * Each distinct subscriber zone's send instant, for a set-based update of the recipients: the
 * keys are the zones as subscribers spelled them. Those the map leaves out (absent or invalid)
 * take `fallback`, the instant in scheduled_timezone.
 */
export function sendInstantsByTimezone(
  scheduledAt: Date,
  scheduledTimezone: string,
  subscriberTimezones: Iterable<string>,
): { byTimezone: Map<string, Date>; fallback: Date } {
  const fallback = subscriberSendInstant(scheduledAt, scheduledTimezone, null);
  const byTimezone = new Map<string, Date>();
  for (const tz of subscriberTimezones) {
    if (!isValidTimezone(tz.trim())) continue;
    byTimezone.set(tz, subscriberSendInstant(scheduledAt, scheduledTimezone, tz));
  }
  return { byTimezone, fallback };
}

/**
 * When a scheduled broadcast starts (is queued): at scheduled_send_at, or with
 * send_in_subscriber_timezone at the start of its window, so the earliest zone's recipients
 * are queued by their instant.
 */
export function scheduledStart(b: { scheduledSendAt: Date; scheduledTimezone: string | null; sendInSubscriberTimezone: boolean }): Date {
  if (!b.sendInSubscriberTimezone || b.scheduledTimezone === null || !isValidTimezone(b.scheduledTimezone)) return b.scheduledSendAt;
  return timezoneSendWindow(b.scheduledSendAt, b.scheduledTimezone).start;
}
