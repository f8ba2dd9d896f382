import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * Tracking and unsubscribe links carry `<recipient id>-<MAC>`: the MAC is an HMAC-SHA256 of the
 * recipient id under a random secret of the broadcast (132 bits kept), so a token cannot be
 * forged or enumerated, and no per-recipient random value has to be generated or indexed.
 *
 * A transactional's unsubscribe link carries `t<transactional id>-<MAC>`, the MAC under a random
 * secret of that transactional, over a message no broadcast token signs: it names the one
 * subscriber the transactional went to, in its channel.
 */

const MAC_LENGTH = 22;

interface TokenKind {
  pattern: RegExp;
  prefix: string;
  message: string;
}

const RECIPIENT: TokenKind = { pattern: /^([1-9]\d{0,15})-([A-Za-z0-9_-]{22})$/, prefix: '', message: 'recipient' };
const TRANSACTIONAL: TokenKind = { pattern: /^t([1-9]\d{0,15})-([A-Za-z0-9_-]{22})$/, prefix: 't', message: 'transactional-unsubscribe' };

function mac(kind: TokenKind, secret: Uint8Array, id: number): string {
  return createHmac('sha256', secret).update(`${kind.message}:${id}`).digest('base64url').slice(0, MAC_LENGTH);
}

const make = (kind: TokenKind, secret: Uint8Array, id: number) => `${kind.prefix}${id}-${mac(kind, secret, id)}`;

function idOf(kind: TokenKind, token: string): number | null {
  const m = kind.pattern.exec(token);
  return m ? Number(m[1]) : null;
}

function verify(kind: TokenKind, secret: Uint8Array, token: string): boolean {
  const m = kind.pattern.exec(token);
  if (!m) return false;
  const expected = Buffer.from(mac(kind, secret, Number(m[1])));
  const given = Buffer.from(m[2]!);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export const trackingToken = (secret: Uint8Array, recipientId: number): string => make(RECIPIENT, secret, recipientId);

/** The recipient id a well-formed token names (not yet verified), or null. */
export const trackingTokenRecipient = (token: string): number | null => idOf(RECIPIENT, token);

/** Constant-time check of a token against the broadcast's secret. */
export const verifyTrackingToken = (secret: Uint8Array, token: string): boolean => verify(RECIPIENT, secret, token);

export const transactionalUnsubscribeToken = (secret: Uint8Array, transactionalId: number): string => make(TRANSACTIONAL, secret, transactionalId);

/** The transactional id a well-formed transactional token names (not yet verified), or null. */
export const transactionalTokenId = (token: string): number | null => idOf(TRANSACTIONAL, token);

/** Constant-time check of a transactional token against that transactional's secret. */
export const verifyTransactionalUnsubscribeToken = (secret: Uint8Array, token: string): boolean => verify(TRANSACTIONAL, secret, token);

/*
 * A sequence email's unsubscribe link carries `q<enrolment id>.<step id>-<MAC>`, the MAC under a
 * random secret of the sequence over both ids, so a token names one enrolment's one step.
 */
const SEQUENCE_TOKEN = /^q([1-9]\d{0,15})\.([1-9]\d{0,15})-([A-Za-z0-9_-]{22})$/;

const sequenceMac = (secret: Uint8Array, enrolmentId: number, stepId: number) =>
  createHmac('sha256', secret).update(`sequence-unsubscribe:${enrolmentId}:${stepId}`).digest('base64url').slice(0, MAC_LENGTH);

export const sequenceUnsubscribeToken = (secret: Uint8Array, enrolmentId: number, stepId: number): string =>
  `q${enrolmentId}.${stepId}-${sequenceMac(secret, enrolmentId, stepId)}`;

/** The enrolment and step a well-formed sequence token names (not yet verified), or null. */
export function sequenceTokenIds(token: string): { enrolmentId: number; stepId: number } | null {
  const m = SEQUENCE_TOKEN.exec(token);
  return m ? { enrolmentId: Number(m[1]), stepId: Number(m[2]) } : null;
}

/** Constant-time check of a sequence token against its sequence's secret. */
export function verifySequenceUnsubscribeToken(secret: Uint8Array, token: string): boolean {
  const m = SEQUENCE_TOKEN.exec(token);
  if (!m) return false;
  const expected = Buffer.from(sequenceMac(secret, Number(m[1]), Number(m[2])));
  const given = Buffer.from(m[3]!);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/*
 * A broadcast recipient's web-view link (`{{ web_view_url }}`, docs/archive.md) carries
 * `w<recipient id>-<MAC>` under the broadcast's tracking secret, over a message no tracking or
 * unsubscribe token signs: it shows the recipient's own copy and can neither track nor unsubscribe.
 */
const WEB_VIEW: TokenKind = { pattern: /^w([1-9]\d{0,15})-([A-Za-z0-9_-]{22})$/, prefix: 'w', message: 'web-view' };

export const webViewToken = (secret: Uint8Array, recipientId: number): string => make(WEB_VIEW, secret, recipientId);

/** The recipient id a well-formed web-view token names (not yet verified), or null. */
export const webViewTokenRecipient = (token: string): number | null => idOf(WEB_VIEW, token);

/** Constant-time check of a web-view token against the broadcast's secret. */
export const verifyWebViewToken = (secret: Uint8Array, token: string): boolean => verify(WEB_VIEW, secret, token);
