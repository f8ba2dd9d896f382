import { createHmac, timingSafeEqual } from 'node:crypto';

/** What an asynchronous notification says about a recipient's email (docs/bounces.md). */
export const BOUNCE_KINDS = ['hard_bounce', 'soft_bounce', 'complaint'] as const;
export type BounceKind = (typeof BOUNCE_KINDS)[number];

/** Soft bounces suppress an address once it has this many within the window (docs/bounces.md). */
export const SOFT_BOUNCE_THRESHOLD = 3;
export const SOFT_BOUNCE_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

/** A Message-ID as stored (`<id@host>`), from a header value with or without its angle brackets. */
export function normalizeMessageId(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const bare = raw.trim().replace(/^<+/, '').replace(/>+$/, '').trim();
  if (bare === '' || bare.length > 995 || /[\s<>]/.test(bare)) return null;
  return `<${bare}>`;
}

/**
 * A broadcast recipient's Message-ID is `<broadcast id>.<subscriber id>.<suffix>`: the two ids
 * find the recipient row by its unique key, and the whole value is then compared.
 */
export function messageIdRecipient(messageId: string): { broadcastId: number; subscriberId: number } | null {
  const m = /^<([1-9]\d{0,15})\.([1-9]\d{0,15})\.[^<>\s]+>$/.exec(messageId);
  return m ? { broadcastId: Number(m[1]), subscriberId: Number(m[2]) } : null;
}

/*
 * VERP: the envelope sender of a broadcast email is `bounces+<recipient id>-<MAC>@<bounce domain>`.
 * The MAC is an HMAC-SHA256 of the recipient id under the broadcast's random secret (the one its
 * tracking links use, with another purpose string, so neither token stands for the other), in
 * lower-case hex: local parts may be case-folded on their way back, and hex survives that.
 */
const VERP_PREFIX = 'bounces+';
const VERP_MAC_LENGTH = 26;
const VERP_TOKEN = /^([1-9]\d{0,15})-([0-9a-f]{26})$/;

function verpMac(secret: Uint8Array, recipientId: number): string {
  return createHmac('sha256', secret).update(`verp:${recipientId}`).digest('hex').slice(0, VERP_MAC_LENGTH);
}

export function verpAddress(secret: Uint8Array, recipientId: number, bounceDomain: string): string {
  return `${VERP_PREFIX}${recipientId}-${verpMac(secret, recipientId)}@${bounceDomain}`;
}

/** The recipient id and token of a VERP address (not yet verified), or null. */
export function parseVerpAddress(address: string): { recipientId: number; token: string } | null {
  const at = address.lastIndexOf('@');
  if (at < 0) return null;
  const local = address.slice(0, at).toLowerCase();
  if (!local.startsWith(VERP_PREFIX)) return null;
  const token = local.slice(VERP_PREFIX.length);
  const m = VERP_TOKEN.exec(token);
  return m ? { recipientId: Number(m[1]), token } : null;
}

/** Constant-time check of a VERP token against the broadcast's secret. */
export function verifyVerpToken(secret: Uint8Array, token: string): boolean {
  const m = VERP_TOKEN.exec(token);
  if (!m) return false;
  const expected = Buffer.from(verpMac(secret, Number(m[1])));
  const given = Buffer.from(m[2]!);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * An RFC 3464 per-recipient report: `Action: failed` with a 5.x.x status is a hard bounce, with a
 * 4.x.x status a soft one (the remote server gave up on a temporary condition); `delayed`,
 * `delivered`, `relayed` and `expanded` are no bounce.
 */
export function dsnBounceKind(action: string | undefined, status: string | undefined): 'hard_bounce' | 'soft_bounce' | null {
  if ((action ?? '').trim().toLowerCase() !== 'failed') return null;
  const cls = /^\s*([245])\.\d{1,3}\.\d{1,3}/.exec(status ?? '')?.[1];
  if (cls === '4') return 'soft_bounce';
  return 'hard_bounce';
}

/**
 * Headers a provider needs to hand our Message-ID back in its notifications: Postmark gives each
 * email an id of its own and returns `X-PM-Metadata-*` headers as metadata (docs/bounces.md).
 */
export function providerHeaders(host: string, messageId: string): Record<string, string> {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'postmarkapp.com' || h.endsWith('.postmarkapp.com') ? { 'X-PM-Metadata-mailcast-message-id': messageId } : {};
}
