import { createHash } from 'node:crypto';

// RFC 5322 atext (ASCII letters, digits and these symbols); RFC 6531 adds any non-ASCII character.
const ATEXT = "[a-z0-9!#$%&'*+/=?^_`{|}~-]|[^\\x00-\\x7f]";
/** A dot-atom: atext runs joined by single dots (RFC 5321's Dot-string). */
const DOT_ATOM = new RegExp(`^(?:${ATEXT})+(?:\\.(?:${ATEXT})+)*$`, 'iu');
/**
 * What an unquoted local part may hold: atext and dots anywhere (leading, trailing and doubled
 * dots were accepted before and some providers hand such addresses out), nothing else, so no
 * quote, backslash, comma, parenthesis or angle bracket that a mail library could read as
 * syntax (docs/subscribers.md, "One form of an address").
 */
const UNQUOTED_LOCAL = new RegExp(`^(?:${ATEXT}|\\.)+$`, 'iu');

/**
 * docs/subscribers.md, "One form of an address": trimmed, lower-cased (the whole address, as
 * before), and a quoted local part whose content is a dot-atom unquoted, since RFC 5321 §4.1.2
 * makes `"ann"@example.com` and `ann@example.com` the same mailbox. Anything else is left for
 * isValidEmail to refuse. Lookups use this alone; writes and sends use canonicalEmail.
 */
export function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  if (at > 2 && local.startsWith('"') && local.endsWith('"') && DOT_ATOM.test(local.slice(1, -1))) {
    return local.slice(1, -1) + email.slice(at);
  }
  return email;
}

// One DNS label: letters (any script), marks, digits and inner hyphens.
const DOMAIN_LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{M}\p{N}-]*[\p{L}\p{M}\p{N}])?$/u;
const SPACE_OR_CONTROL = /[\p{White_Space}\p{Cc}]/u;

/**
 * docs/subscribers.md: syntactic check only (no DNS, no TLD list, so `.test` passes).
 * Exactly one `@`, a local part of atext and dots (never quoted: normalizeEmail unquotes what
 * may be unquoted, and what needs its quotes is refused), a domain of at least two non-empty
 * labels, no whitespace or control characters, at most 254 characters (counted as code points).
 */
export function isValidEmail(email: string): boolean {
  if (typeof email !== 'string' || email.length === 0) return false;
  if (Array.from(email).length > 254 || SPACE_OR_CONTROL.test(email)) return false;
  const parts = email.split('@');
  if (parts.length !== 2) return false;
  const [local, domain] = parts as [string, string];
  if (!UNQUOTED_LOCAL.test(local)) return false;
  const labels = domain.split('.');
  return labels.length >= 2 && labels.every((label) => DOMAIN_LABEL.test(label));
}

/**
 * The one form every incoming address takes before it is stored, checked against a
 * suppression list or sent to (docs/subscribers.md): normalised, or null when it is refused.
 */
export function canonicalEmail(raw: string): string | null {
  if (typeof raw !== 'string') return null;
  const email = normalizeEmail(raw);
  return isValidEmail(email) ? email : null;
}

export type SubscriberState = {
  isActive: boolean;
  unsubscribedAt: Date | null;
  confirmedAt: Date | null;
  redactedAt: Date | null;
};

// The transitions below follow the spec's "Subscriber state" table. They are generic so a
// caller can pass a whole record and get the same record type back, never mutated.

/** Administrative switch-off; unsubscribed_at is not changed (spec). */
export function deactivate<S extends SubscriberState>(s: S): S {
  return { ...s, isActive: false };
}

/** Administrative switch-on; reverses deactivate only, so unsubscribed_at is kept. */
export function activate<S extends SubscriberState>(s: S): S {
  return { ...s, isActive: true };
}

/** Explicit opt-out: unsubscribed_at is set to the current time (spec). */
export function unsubscribe<S extends SubscriberState>(s: S, now: Date): S {
  return { ...s, isActive: false, unsubscribedAt: now };
}

export function resubscribe<S extends SubscriberState>(s: S): S {
  return { ...s, isActive: true, unsubscribedAt: null };
}

/** Confirming twice keeps the first confirmation time (a re-clicked link changes nothing). */
export function confirm<S extends SubscriberState>(s: S, now: Date): S {
  return s.confirmedAt !== null ? s : { ...s, confirmedAt: now };
}

/** Spec: confirmation_status is derived from confirmed_at. */
export function confirmationStatus(confirmedAt: Date | null): 'confirmed' | 'unconfirmed' {
  return confirmedAt !== null ? 'confirmed' : 'unconfirmed';
}

export type ExistingSubscriber = {
  confirmedAt: Date | null;
  isActive: boolean;
  unsubscribedAt: Date | null;
};

export type CreateDecision =
  | { kind: 'create' }
  | { kind: 'create_pending' }
  | { kind: 'reissue_confirmation' }
  | { kind: 'return_unchanged' }
  | { kind: 'update_and_reactivate'; resubscribed: boolean };

/**
 * What POST create does, per the last four rows of the spec's "Subscriber state" table.
 * `resubscribed` tells the caller to emit subscriber.subscribed (docs/webhooks.md event table: "create
 * that reactivates an unsubscribed subscriber"); an inactive subscriber counts as well, since
 * the create turns it back on.
 */
export function decideCreate(existing: ExistingSubscriber | null, doubleOptIn: boolean): CreateDecision {
  if (existing === null) return doubleOptIn ? { kind: 'create_pending' } : { kind: 'create' };
  if (doubleOptIn) {
    return existing.confirmedAt === null ? { kind: 'reissue_confirmation' } : { kind: 'return_unchanged' };
  }
  return {
    kind: 'update_and_reactivate',
    resubscribed: existing.unsubscribedAt !== null || !existing.isActive,
  };
}

/**
 * docs/subscribers.md: the placeholder is unique per subscriber, and `.invalid` (RFC 2606)
 * can never receive mail, so a later create with the old address makes a new subscriber.
 */
export function redactedEmail(id: number): string {
  return `redacted-${id}@redacted.invalid`;
}

export type RedactionPatch = {
  email: string;
  firstName: null;
  lastName: null;
  ipAddress: null;
  customData: Record<string, never>;
};

/** Spec "Redact": email, names, IP and custom data go; tags and statistics stay. */
export function redactionPatch(id: number): RedactionPatch {
  return { email: redactedEmail(id), firstName: null, lastName: null, ipAddress: null, customData: {} };
}

// No leading zero before another digit: "007" is an identifier (a zip code), not the number 7.
const NUMERIC = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/**
 * Spec list filter `custom_data[key]=value`: numeric strings become numbers, `true`/`false`
 * booleans, anything else stays a string. An integer too large to be exact as a JavaScript
 * number stays a string rather than silently matching a different value, and so does a number
 * written with a leading zero ("007"), which would lose its zeros as a number. The CSV import
 * stores cells through this same function, so the two always agree (docs/subscribers.md).
 */
export function parseCustomDataFilterValue(v: string): string | number | boolean {
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (NUMERIC.test(v)) {
    const n = Number(v);
    if (v.includes('.') ? Number.isFinite(n) : Number.isSafeInteger(n)) return n;
  }
  return v;
}

/** Spec Limits: a subscriber list page holds up to 250 subscribers. */
export const SUBSCRIBERS_PAGE_SIZE = 250;

export type SubscriberPagination = {
  total: number;
  count: number;
  from: number;
  to: number;
  current: number;
  total_pages: number;
};

/**
 * The spec's `pagination` object for page `current` (1-based) of a list of `total` that holds
 * `count` items. `from`/`to` are 1-based positions of the first and last item on the page, and
 * both 0 when the page is empty (an empty list, or a page past the end).
 */
export function subscriberPagination(total: number, current: number, count: number, pageSize = SUBSCRIBERS_PAGE_SIZE): SubscriberPagination {
  const from = count === 0 ? 0 : (current - 1) * pageSize + 1;
  return {
    total,
    count,
    from,
    to: count === 0 ? 0 : from + count - 1,
    current,
    total_pages: Math.ceil(total / pageSize),
  };
}

/**
 * The total a page proves by itself, or null when only a count can tell. A page that is neither
 * full nor empty is the last one, so total = offset + its length; an empty first page means
 * none. Exact, never an estimate: the count query is only saved when it could add nothing.
 */
export function totalFromPage(offset: number, limit: number, length: number): number | null {
  if (length > 0 && length < limit) return offset + length;
  if (length === 0 && offset === 0) return 0;
  return null;
}

const CONFIRMATION_TOKEN_BYTES = 32;
const CONFIRMATION_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The double opt-in link's token: base64url of 32 random bytes. Like API tokens it has 256 bits,
 * so a plain SHA-256 is enough at rest (only the hash is stored).
 */
export function formatConfirmationToken(random: Uint8Array): string {
  if (random.length !== CONFIRMATION_TOKEN_BYTES) {
    throw new RangeError(`a confirmation token needs exactly ${CONFIRMATION_TOKEN_BYTES} random bytes`);
  }
  return Buffer.from(random).toString('base64url');
}

export function hashConfirmationToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Whether a path segment can be a token at all; anything else is unknown without a lookup. */
export function isConfirmationTokenShape(token: string): boolean {
  return CONFIRMATION_TOKEN_SHAPE.test(token);
}
