/**
 * Machine opens and clicks told apart (docs/engagement.md). Pure: the caller passes the request's
 * facts, the bot list's verdict (`isKnownBot`, from a maintained list at the edge: the domain has
 * no dependencies) and the earlier clicks of the same email; nothing here reads a clock.
 */

export const MACHINE_REASONS = ['user_agent', 'prefetch', 'scanner', 'head'] as const;
export type MachineReason = (typeof MACHINE_REASONS)[number];

/** An open fetched this soon after delivery by a mail proxy is the proxy's prefetch. */
export const PREFETCH_WINDOW_MS = 2_000;
/** A click this soon after delivery is a link scanner's: no person reads and clicks that fast. */
export const SCANNER_DELIVERY_WINDOW_MS = 10_000;
/** Every link of one email clicked within this span is a scanner walking the email. */
export const SCANNER_BURST_WINDOW_MS = 5_000;

/**
 * Mail proxies that fetch images for their users: Gmail's and Yahoo's image proxies name
 * themselves, Apple Mail Privacy Protection sends a bare `Mozilla/5.0`. Bot lists count them as
 * bots, but a proxy's fetch after the prefetch window is a person opening the email through it,
 * so they are judged by timing, never by their agent alone.
 */
const MAIL_PROXY = /GoogleImageProxy|ggpht\.com|YahooMailProxy|^Mozilla\/5\.0$/i;

export function isMailProxy(userAgent: string | null): boolean {
  // No agent at all is what a fetching service sends, never a mail client or browser.
  if (userAgent === null || userAgent.trim() === '') return true;
  return MAIL_PROXY.test(userAgent.trim());
}

export interface EarlierClick {
  id: number;
  linkId: number;
  at: Date;
  machine: boolean;
}

export interface EngagementRequest {
  kind: 'open' | 'click';
  /** The HTTP method: HEAD never comes from a person's click or a rendered image. */
  method: string;
  userAgent: string | null;
  /** The maintained bot list's verdict on `userAgent`. */
  isKnownBot: boolean;
  /** When the SMTP server accepted the email; null while that is not recorded yet. */
  deliveredAt: Date | null;
  at: Date;
  /** Clicks: the link clicked, how many tracked links the email has, and its earlier clicks. */
  linkId?: number;
  linkCount?: number;
  earlierClicks?: readonly EarlierClick[];
}

export interface Classification {
  machine: boolean;
  machine_reason: MachineReason | null;
  /** Earlier clicks, recorded as human, that this one shows were a scanner's burst. */
  retroactive: number[];
}

const HUMAN: Classification = { machine: false, machine_reason: null, retroactive: [] };
const flagged = (reason: MachineReason, retroactive: number[] = []): Classification => ({ machine: true, machine_reason: reason, retroactive });

/**
 * Milliseconds from delivery to the request. A request for an email whose delivery is not
 * recorded yet arrived before the outcome was even written down, so it counts as immediate.
 */
function sinceDelivery(r: EngagementRequest): number {
  return r.deliveredAt === null ? 0 : r.at.getTime() - r.deliveredAt.getTime();
}

/**
 * The rules in order: HEAD, then the agent (a mail proxy's agent is judged by timing instead),
 * then timing: an open by a proxy within 2 s of delivery is a prefetch; a click within 10 s of
 * delivery, or one completing a walk over every link of the email (at least two) within 5 s, is
 * a scanner's, and the earlier human-looking clicks of that walk are flagged with it.
 */
export function classifyEngagement(r: EngagementRequest): Classification {
  if (r.method.toUpperCase() === 'HEAD') return flagged('head');
  const proxy = isMailProxy(r.userAgent);
  if (r.isKnownBot && !proxy) return flagged('user_agent');
  const elapsed = sinceDelivery(r);
  if (r.kind === 'open') return proxy && elapsed < PREFETCH_WINDOW_MS ? flagged('prefetch') : HUMAN;
  if (elapsed < SCANNER_DELIVERY_WINDOW_MS) return flagged('scanner');
  const burst = scannerBurst(r);
  return burst === null ? HUMAN : flagged('scanner', burst);
}

/**
 * The clicks recorded before this one within 5 s of it, if together with it they cover every
 * link of an email of two links or more (a one-link email's single click is what people do):
 * the ids of those not flagged yet. Null when there is no such walk. "Within 5 s" looks both
 * ways: clicks of one email are recorded one at a time, but links fetched at once may be
 * recorded in either order, so one recorded earlier can carry a time a moment later.
 */
function scannerBurst(r: EngagementRequest): number[] | null {
  const links = r.linkCount ?? 0;
  if (links < 2 || r.linkId === undefined) return null;
  const at = r.at.getTime();
  const burst = (r.earlierClicks ?? []).filter((c) => Math.abs(c.at.getTime() - at) <= SCANNER_BURST_WINDOW_MS);
  const covered = new Set([r.linkId, ...burst.map((c) => c.linkId)]);
  if (covered.size < links) return null;
  return burst.filter((c) => !c.machine).map((c) => c.id);
}

export interface ActionRequest {
  method: string;
  userAgent: string | null;
  isKnownBot: boolean;
  /** When the email carrying the link was accepted, where that is known. */
  deliveredAt: Date | null;
  at: Date;
}

/**
 * Whether a one-click POST or a GET of an unsubscribe or confirmation link comes from a machine
 * by the same rules (docs/engagement.md, "Unsubscribe and confirmation"): HEAD, a bot list's
 * agent, or arriving within 10 s of the email's delivery. Unlike the pixel, no agent is excused
 * as a mail proxy: a proxy fetches images, it never acts for a person. Where the delivery time
 * is not known the timing rule cannot apply. Null when a person may have sent it.
 */
export function machineAction(r: ActionRequest): MachineReason | null {
  if (r.method.toUpperCase() === 'HEAD') return 'head';
  if (r.isKnownBot) return 'user_agent';
  if (r.deliveredAt !== null && r.at.getTime() - r.deliveredAt.getTime() < SCANNER_DELIVERY_WINDOW_MS) return 'scanner';
  return null;
}
