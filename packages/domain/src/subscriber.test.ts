import fc from 'fast-check';
import { createHash } from 'node:crypto';
import {
  type SubscriberState,
  formatConfirmationToken,
  hashConfirmationToken,
  isConfirmationTokenShape,
  subscriberPagination,
  totalFromPage,
  activate,
  confirm,
  confirmationStatus,
  deactivate,
  decideCreate,
  canonicalEmail,
  isValidEmail,
  normalizeEmail,
  parseCustomDataFilterValue,
  redactedEmail,
  redactionPatch,
  resubscribe,
  unsubscribe,
} from './subscriber';

describe('normalizeEmail', () => {
  test.each([
    ['  Jane.Doe@Example.COM ', 'jane.doe@example.com'],
    ['\tBOB@EXAMPLE.TEST\n', 'bob@example.test'],
    ['already@lower.case', 'already@lower.case'],
  ])('%j → %j', (raw, expected) => {
    expect(normalizeEmail(raw)).toBe(expected);
  });
});

describe('isValidEmail (docs/subscribers.md: syntactic only)', () => {
  test.each([
    'jane@example.com',
    'jane.doe+tag@sub.example.co.uk',
    'user@example.test',
    'user@localhost.localdomain',
    'x@a.b',
    "o'neil@example.org",
    'user@xn--bcher-kva.example',
    'zoë@bücher.de',
    'user@例え.テスト',
    'a-b@my-host.example',
    'UPPER@EXAMPLE.COM',
    `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`, // exactly 254
  ])('accepts %j', (email) => {
    expect(isValidEmail(email)).toBe(true);
  });

  test.each([
    '',
    'plainaddress',
    '@example.com',
    'user@',
    'user@localhost',
    'user@@example.com',
    'a@b@example.com',
    'user@.example.com',
    'user@example.com.',
    'user@example..com',
    'user@-example.com',
    'user@example-.com',
    'user@exa_mple.com',
    'us er@example.com',
    ' user@example.com',
    'user@example.com ',
    'user\u0000@example.com',
    'user\n@example.com',
    'user\u00a0@example.com',
    'user@[127.0.0.1]',
    `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`, // 255
  ])('refuses %j', (email) => {
    expect(isValidEmail(email)).toBe(false);
  });
});

describe('canonicalEmail (docs/subscribers.md: one form of an address)', () => {
  test.each([
    ['"blocked"@example.com', 'blocked@example.com'],
    ['  "Blocked"@Example.COM ', 'blocked@example.com'],
    ['"jane.doe+tag"@example.com', 'jane.doe+tag@example.com'],
    ['"zoë"@bücher.de', 'zoë@bücher.de'],
    ['"o\'neil"@example.org', "o'neil@example.org"],
    ['Jane.Doe@Example.COM', 'jane.doe@example.com'],
    // Unquoted dots stay as accepted before (leading, trailing, doubled).
    ['a..b@example.com', 'a..b@example.com'],
  ])('%j → %j', (raw, expected) => {
    expect(canonicalEmail(raw)).toBe(expected);
  });

  test.each([
    '"a b"@example.com', // needs its quotes: a space
    '"a..b"@example.com', // not a dot-atom: doubled dot
    '".a"@example.com',
    '"a\\"b"@example.com', // backslash escape
    '"a\\b"@example.com',
    '"a,b"@example.com',
    '"a@b"@example.com',
    '""@example.com',
    '"@example.com',
    '"a"b@example.com', // a quoted string that is only part of the local part
    'a"b"@example.com',
    'bl"ocked"@example.com',
    'a,blocked@example.com', // a mail library reads the comma as a list separator
    'a(comment)blocked@example.com',
    'a<blocked@example.com',
    'a\\blocked@example.com',
    'a;b@example.com',
    'a:b@example.com',
    'a[b]@example.com',
  ])('refuses %j', (raw) => {
    expect(canonicalEmail(raw)).toBeNull();
  });

  // Local parts built from atext, dots and the characters that need quoting, quoted or not.
  const localChar = fc.constantFrom(...'abcXYZ09.!#+-_\'"\\ ,()<>@:;[]é'.split(''));
  const local = fc.array(localChar, { minLength: 0, maxLength: 12 }).map((cs) => cs.join(''));
  const address = fc
    .tuple(local, fc.boolean(), fc.constantFrom('example.com', 'EXAMPLE.test', 'bücher.de', 'a..b', 'x'), fc.constantFrom('', ' ', '\t'))
    .map(([l, quoted, domain, pad]) => `${pad}${quoted ? `"${l}"` : l}@${domain}${pad}`);

  it('is idempotent and never returns a quoted local part or an invalid address', () => {
    fc.assert(
      fc.property(address, (raw) => {
        const once = canonicalEmail(raw);
        if (once === null) return;
        expect(canonicalEmail(once)).toBe(once);
        expect(once).not.toContain('"');
        expect(isValidEmail(once)).toBe(true);
        expect(once).toBe(once.trim().toLowerCase());
      }),
      { numRuns: 2000 },
    );
  });

  it('gives a quoted local part the same form as the same local part unquoted, when that is a dot-atom', () => {
    const dotAtom = fc.array(fc.stringMatching(/^[a-z0-9!#+_-]{1,5}$/), { minLength: 1, maxLength: 4 }).map((atoms) => atoms.join('.'));
    fc.assert(
      fc.property(dotAtom, (l) => {
        expect(canonicalEmail(`"${l}"@example.com`)).toBe(`${l}@example.com`);
        expect(canonicalEmail(`${l}@example.com`)).toBe(`${l}@example.com`);
      }),
    );
  });

  it('refuses every address whose local part keeps a quote, backslash or special after normalising', () => {
    fc.assert(
      fc.property(address, (raw) => {
        const normalised = normalizeEmail(raw);
        const local = normalised.slice(0, normalised.lastIndexOf('@'));
        if (/["\\ ,()<>@:;[\]]/.test(local)) expect(canonicalEmail(raw)).toBeNull();
      }),
      { numRuns: 2000 },
    );
  });
});

describe('subscriber state table', () => {
  const t0 = new Date('2026-01-01T00:00:00Z');
  const now = new Date('2026-02-01T12:00:00Z');
  const active: SubscriberState = { isActive: true, unsubscribedAt: null, confirmedAt: null, redactedAt: null };
  const unsubscribed: SubscriberState = { isActive: false, unsubscribedAt: t0, confirmedAt: t0, redactedAt: null };
  const deactivated: SubscriberState = { isActive: false, unsubscribedAt: null, confirmedAt: null, redactedAt: null };

  test.each([
    ['deactivate', 'active', deactivate, active, { ...active, isActive: false }],
    ['deactivate', 'unsubscribed', deactivate, unsubscribed, unsubscribed],
    ['activate', 'deactivated', activate, deactivated, { ...deactivated, isActive: true }],
    ['activate', 'unsubscribed (unsubscribed_at kept)', activate, unsubscribed, { ...unsubscribed, isActive: true }],
    ['unsubscribe', 'active', (s: SubscriberState) => unsubscribe(s, now), active, { ...active, isActive: false, unsubscribedAt: now }],
    ['unsubscribe', 'unsubscribed (time set again)', (s: SubscriberState) => unsubscribe(s, now), unsubscribed, { ...unsubscribed, unsubscribedAt: now }],
    ['resubscribe', 'unsubscribed', resubscribe, unsubscribed, { ...unsubscribed, isActive: true, unsubscribedAt: null }],
    ['resubscribe', 'deactivated', resubscribe, deactivated, { ...deactivated, isActive: true }],
    ['confirm', 'unconfirmed', (s: SubscriberState) => confirm(s, now), active, { ...active, confirmedAt: now }],
    ['confirm', 'confirmed (first time kept)', (s: SubscriberState) => confirm(s, now), unsubscribed, unsubscribed],
  ] as const)('%s from %s', (_verb, _from, transition, before, after) => {
    const snapshot = { ...before };
    expect(transition(before)).toEqual(after);
    expect(before).toEqual(snapshot); // never mutated
  });

  test('transitions keep the other fields of a whole record', () => {
    const record = { ...active, id: 7, email: 'a@b.test' };
    const result = unsubscribe(record, now);
    expect(result).toEqual({ id: 7, email: 'a@b.test', isActive: false, unsubscribedAt: now, confirmedAt: null, redactedAt: null });
  });

  test.each([
    [null, 'unconfirmed'],
    [t0, 'confirmed'],
  ] as const)('confirmationStatus(%s) is %s', (confirmedAt, expected) => {
    expect(confirmationStatus(confirmedAt)).toBe(expected);
  });
});

describe('decideCreate', () => {
  const t0 = new Date('2026-01-01T00:00:00Z');
  test.each([
    ['new, no double opt-in', null, false, { kind: 'create' }],
    ['new, double opt-in', null, true, { kind: 'create_pending' }],
    ['unconfirmed, double opt-in', { confirmedAt: null, isActive: true, unsubscribedAt: null }, true, { kind: 'reissue_confirmation' }],
    ['confirmed, double opt-in', { confirmedAt: t0, isActive: true, unsubscribedAt: null }, true, { kind: 'return_unchanged' }],
    ['confirmed but unsubscribed, double opt-in', { confirmedAt: t0, isActive: false, unsubscribedAt: t0 }, true, { kind: 'return_unchanged' }],
    ['active, no double opt-in', { confirmedAt: null, isActive: true, unsubscribedAt: null }, false, { kind: 'update_and_reactivate', resubscribed: false }],
    [
      'unsubscribed, no double opt-in',
      { confirmedAt: null, isActive: false, unsubscribedAt: t0 },
      false,
      { kind: 'update_and_reactivate', resubscribed: true },
    ],
    ['deactivated, no double opt-in', { confirmedAt: t0, isActive: false, unsubscribedAt: null }, false, { kind: 'update_and_reactivate', resubscribed: true }],
  ] as const)('%s', (_label, existing, doubleOptIn, expected) => {
    expect(decideCreate(existing, doubleOptIn)).toEqual(expected);
  });
});

describe('redaction (docs/subscribers.md: redacted-<id>@redacted.invalid)', () => {
  test('placeholder email', () => {
    expect(redactedEmail(42)).toBe('redacted-42@redacted.invalid');
    expect(isValidEmail(redactedEmail(42))).toBe(true);
  });

  test('patch clears personal data', () => {
    expect(redactionPatch(7)).toEqual({
      email: 'redacted-7@redacted.invalid',
      firstName: null,
      lastName: null,
      ipAddress: null,
      customData: {},
    });
  });
});

describe('parseCustomDataFilterValue', () => {
  test.each([
    ['42', 42],
    ['-3', -3],
    ['0', 0],
    ['3.5', 3.5],
    ['007', '007'],
    ['-007', '-007'],
    ['00.5', '00.5'],
    ['0.5', 0.5],
    ['true', true],
    ['false', false],
    ['True', 'True'],
    ['pro', 'pro'],
    ['', ''],
    ['1e3', '1e3'],
    ['0x10', '0x10'],
    [' 42', ' 42'],
    ['1.', '1.'],
    ['.5', '.5'],
    ['12345678901234567890', '12345678901234567890'],
  ] as const)('%j → %j', (input, expected) => {
    expect(parseCustomDataFilterValue(input)).toBe(expected);
  });
});

describe('subscriberPagination (spec: pages of 250)', () => {
  test.each([
    ['empty list', 0, 1, 0, { total: 0, count: 0, from: 0, to: 0, current: 1, total_pages: 0 }],
    ['one partial page', 3, 1, 3, { total: 3, count: 3, from: 1, to: 3, current: 1, total_pages: 1 }],
    ['exact multiple, last page', 500, 2, 250, { total: 500, count: 250, from: 251, to: 500, current: 2, total_pages: 2 }],
    ['past the end', 500, 3, 0, { total: 500, count: 0, from: 0, to: 0, current: 3, total_pages: 2 }],
    ['short last page', 501, 3, 1, { total: 501, count: 1, from: 501, to: 501, current: 3, total_pages: 3 }],
  ])('%s', (_name, total, current, count, expected) => {
    expect(subscriberPagination(total, current, count)).toEqual(expected);
  });
});

describe('confirmation tokens', () => {
  const bytes = Uint8Array.from({ length: 32 }, (_, i) => i);

  test('base64url of 32 bytes, recognised by shape, hashed with SHA-256', () => {
    const token = formatConfirmationToken(bytes);
    expect(token).toBe('AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8');
    expect(isConfirmationTokenShape(token)).toBe(true);
    expect(hashConfirmationToken(token).toString('hex')).toBe(createHash('sha256').update(token).digest('hex'));
  });

  test.each(['', 'short', 'A'.repeat(44), `${'A'.repeat(42)}=`, `${'A'.repeat(42)}/`])('%p is not a token', (s) => {
    expect(isConfirmationTokenShape(s)).toBe(false);
  });

  test('refuses the wrong amount of randomness', () => {
    expect(() => formatConfirmationToken(new Uint8Array(16))).toThrow(RangeError);
  });
});

describe('totalFromPage (the count is saved only when the page proves the total)', () => {
  test.each([
    ['empty first page', 0, 250, 0, 0],
    ['short first page', 0, 250, 37, 37],
    ['short later page', 500, 250, 1, 501],
    ['full page: more may follow', 0, 250, 250, null],
    ['empty later page: the total is unknown', 500, 250, 0, null],
  ])('%s', (_name, offset, limit, length, expected) => {
    expect(totalFromPage(offset, limit, length)).toBe(expected);
  });
});
