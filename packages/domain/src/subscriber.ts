/** CONTRACT §Subscribers: emails are stored lower-cased and trimmed. */
export function normalizeEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

// One DNS label: letters (any script), marks, digits and inner hyphens.
const DOMAIN_LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{M}\p{N}-]*[\p{L}\p{M}\p{N}])?$/u;
const SPACE_OR_CONTROL = /[\p{White_Space}\p{Cc}]/u;

/**
 * CONTRACT §Subscribers: syntactic check only (no DNS, no TLD list, so `.test` passes).
 * Exactly one `@`, a non-empty local part, a domain of at least two non-empty labels, no
 * whitespace or control characters, at most 254 characters (counted as code points).
 */
export function isValidEmail(email: string): boolean {
  if (typeof email !== 'string' || email.length === 0) return false;
  if (Array.from(email).length > 254 || SPACE_OR_CONTROL.test(email)) return false;
  const parts = email.split('@');
  if (parts.length !== 2) return false;
  const [local, domain] = parts as [string, string];
  if (local.length === 0) return false;
  const labels = domain.split('.');
  return labels.length >= 2 && labels.every((label) => DOMAIN_LABEL.test(label));
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
 * `resubscribed` tells the caller to emit subscriber.subscribed (CONTRACT event table: "create
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
 * CONTRACT §Subscribers: the placeholder is unique per subscriber, and `.invalid` (RFC 2606)
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

const NUMERIC = /^-?\d+(?:\.\d+)?$/;

/**
 * Spec list filter `custom_data[key]=value`: numeric strings become numbers, `true`/`false`
 * booleans, anything else stays a string. An integer too large to be exact as a JavaScript
 * number stays a string rather than silently matching a different value.
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
