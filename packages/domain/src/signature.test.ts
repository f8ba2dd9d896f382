import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WEBHOOK_HEADERS, signWebhook, signedHeaders, verifyWebhook } from './signature';

type Vector = { secret: string; timestamp: number; body: string; signature: string; why?: string };
const vectors = JSON.parse(readFileSync(join(__dirname, '../test-vectors/webhook-signature.json'), 'utf8')) as {
  vectors: Vector[];
  must_not_verify: Vector[];
  tolerance: { seconds: number };
};

const headersOf = (v: Vector, id = 'evt_1'): Record<string, string> => ({
  [WEBHOOK_HEADERS.id]: id,
  [WEBHOOK_HEADERS.timestamp]: String(v.timestamp),
  [WEBHOOK_HEADERS.signature]: v.signature,
});
const atSeconds = (s: number): Date => new Date(s * 1000);

describe('known-answer vectors', () => {
  test('the file holds vectors of both kinds', () => {
    expect(vectors.vectors.length).toBeGreaterThanOrEqual(4);
    expect(vectors.must_not_verify.length).toBeGreaterThanOrEqual(4);
    expect(vectors.tolerance.seconds).toBe(300);
  });

  test.each(vectors.vectors.map((v, i) => [i, v] as const))('vector %i signs to the expected signature', (_i, v) => {
    expect(signWebhook(v.secret, v.timestamp, v.body)).toBe(v.signature);
    expect(signWebhook(v.secret, v.timestamp, Buffer.from(v.body, 'utf8'))).toBe(v.signature);
  });

  test.each(vectors.vectors.map((v, i) => [i, v] as const))('vector %i verifies (string and bytes)', (_i, v) => {
    const now = atSeconds(v.timestamp);
    expect(verifyWebhook(v.secret, headersOf(v), v.body, { now })).toEqual({
      ok: true,
      id: 'evt_1',
      timestamp: v.timestamp,
    });
    expect(verifyWebhook(v.secret, headersOf(v), new TextEncoder().encode(v.body), { now }).ok).toBe(true);
  });

  test.each(vectors.must_not_verify.map((v) => [v.why ?? '', v] as const))('refuses: %s', (_why, v) => {
    expect(verifyWebhook(v.secret, headersOf(v), v.body, { now: atSeconds(v.timestamp) })).toEqual({
      ok: false,
      reason: 'invalid_signature',
    });
  });
});

describe('signedHeaders', () => {
  test('produces the three spec headers that verify', () => {
    const v = vectors.vectors[0] as Vector;
    const headers = signedHeaders({ eventId: 1, secret: v.secret, timestamp: v.timestamp, rawBody: v.body });
    expect(headers).toEqual({
      'broadcast-webhook-id': '1',
      'broadcast-webhook-timestamp': String(v.timestamp),
      'broadcast-webhook-signature': v.signature,
    });
    expect(verifyWebhook(v.secret, headers, v.body, { now: atSeconds(v.timestamp) })).toEqual({
      ok: true,
      id: '1',
      timestamp: v.timestamp,
    });
  });

  test.each([1.5, -1, Number.NaN])('a timestamp of %d cannot be signed', (ts) => {
    expect(() => signWebhook('whsec_x', ts, '{}')).toThrow(RangeError);
  });
});

describe('verifyWebhook', () => {
  const v = vectors.vectors[0] as Vector;

  test.each([
    ['300 s later', 300, true],
    ['300 s earlier', -300, true],
    ['301 s later', 301, false],
    ['301 s earlier', -301, false],
    ['300.001 s later', 300.001, false],
  ])('receiver clock %s → accepted: %s', (_label, deltaSeconds, ok) => {
    const result = verifyWebhook(v.secret, headersOf(v), v.body, { now: (v.timestamp + deltaSeconds) * 1000 });
    expect(result).toEqual(ok ? { ok: true, id: 'evt_1', timestamp: v.timestamp } : { ok: false, reason: 'timestamp_out_of_tolerance' });
  });

  test('tolerance can be narrowed', () => {
    const now = atSeconds(v.timestamp + 11);
    expect(verifyWebhook(v.secret, headersOf(v), v.body, { now, toleranceSeconds: 10 }).ok).toBe(false);
    expect(verifyWebhook(v.secret, headersOf(v), v.body, { now, toleranceSeconds: 11 }).ok).toBe(true);
  });

  test('a NaN clock or tolerance refuses rather than accepts', () => {
    expect(verifyWebhook(v.secret, headersOf(v), v.body, { now: Number.NaN })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(verifyWebhook(v.secret, headersOf(v), v.body, { now: atSeconds(v.timestamp), toleranceSeconds: Number.NaN }).ok).toBe(false);
  });

  test('defaults to the real clock: fresh signatures pass, a 1970 one does not', () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const fresh = signedHeaders({ eventId: 5, secret: v.secret, timestamp, rawBody: v.body });
    expect(verifyWebhook(v.secret, fresh, v.body)).toEqual({ ok: true, id: '5', timestamp });
    const old = signedHeaders({ eventId: 5, secret: v.secret, timestamp: 1, rawBody: v.body });
    expect(verifyWebhook(v.secret, old, v.body)).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
  });

  test('header names are case-insensitive', () => {
    const headers = {
      'Broadcast-Webhook-Id': 'evt_9',
      'BROADCAST-WEBHOOK-TIMESTAMP': String(v.timestamp),
      'Broadcast-Webhook-Signature': v.signature,
    };
    expect(verifyWebhook(v.secret, headers, v.body, { now: atSeconds(v.timestamp) })).toEqual({
      ok: true,
      id: 'evt_9',
      timestamp: v.timestamp,
    });
  });

  test.each([
    ['the matching one last', `v1,AAAA v1,bm90IGl0 ${'v1,pDLSlu9M20zNyCLApxiFQnz3vjemNqZE3UnMANIP9IU='}`, true],
    ['the matching one first', 'v1,pDLSlu9M20zNyCLApxiFQnz3vjemNqZE3UnMANIP9IU= v1,AAAA', true],
    ['another scheme only', 'v2,pDLSlu9M20zNyCLApxiFQnz3vjemNqZE3UnMANIP9IU=', false],
    ['unpadded', 'v1,pDLSlu9M20zNyCLApxiFQnz3vjemNqZE3UnMANIP9IU', false],
    ['truncated', 'v1,pDLSlu9M20zNyCLApx', false],
    ['empty scheme payload', 'v1,', false],
  ])('several signatures, %s → %s', (_label, signature, ok) => {
    const result = verifyWebhook(v.secret, { ...headersOf(v), [WEBHOOK_HEADERS.signature]: signature }, v.body, {
      now: atSeconds(v.timestamp),
    });
    expect(result.ok).toBe(ok);
  });

  test('a repeated signature header (array) is read as a list', () => {
    const headers = { ...headersOf(v), [WEBHOOK_HEADERS.signature]: ['v1,AAAA', v.signature] };
    expect(verifyWebhook(v.secret, headers, v.body, { now: atSeconds(v.timestamp) }).ok).toBe(true);
  });

  test.each([
    ['no headers', {}],
    ['no id', { [WEBHOOK_HEADERS.timestamp]: '1763769600', [WEBHOOK_HEADERS.signature]: 'v1,x' }],
    ['no timestamp', { [WEBHOOK_HEADERS.id]: '1', [WEBHOOK_HEADERS.signature]: 'v1,x' }],
    ['no signature', { [WEBHOOK_HEADERS.id]: '1', [WEBHOOK_HEADERS.timestamp]: '1763769600' }],
    ['blank id', { [WEBHOOK_HEADERS.id]: ' ', [WEBHOOK_HEADERS.timestamp]: '1763769600', [WEBHOOK_HEADERS.signature]: 'v1,x' }],
    ['undefined value', { [WEBHOOK_HEADERS.id]: undefined, [WEBHOOK_HEADERS.timestamp]: '1', [WEBHOOK_HEADERS.signature]: 'v1,x' }],
  ])('%s → missing_headers', (_label, headers) => {
    expect(verifyWebhook(v.secret, headers, v.body, { now: atSeconds(v.timestamp) })).toEqual({
      ok: false,
      reason: 'missing_headers',
    });
  });

  test.each(['abc', '-1763769600', '1763769600.5', '1e9', '0x10', '1234567890123456'])('timestamp %j → invalid_timestamp', (timestamp) => {
    const headers = { ...headersOf(v), [WEBHOOK_HEADERS.timestamp]: timestamp };
    expect(verifyWebhook(v.secret, headers, v.body, { now: atSeconds(v.timestamp) })).toEqual({
      ok: false,
      reason: 'invalid_timestamp',
    });
  });

  test('a zero-padded timestamp is not the signed one', () => {
    const headers = { ...headersOf(v), [WEBHOOK_HEADERS.timestamp]: `0${v.timestamp}` };
    expect(verifyWebhook(v.secret, headers, v.body, { now: atSeconds(v.timestamp) })).toEqual({
      ok: false,
      reason: 'invalid_signature',
    });
  });

  test('hostile input never throws', () => {
    const now = atSeconds(v.timestamp);
    const hostile: unknown[][] = [
      [v.secret, null, v.body],
      [v.secret, 'headers', v.body],
      [v.secret, { ...headersOf(v), [WEBHOOK_HEADERS.signature]: 42 }, v.body],
      [v.secret, { ...headersOf(v), [WEBHOOK_HEADERS.signature]: [1, 2] }, v.body],
      [v.secret, headersOf(v), { parsed: 'object' }],
      [v.secret, headersOf(v), null],
      [undefined, headersOf(v), v.body],
      ['', headersOf(v), v.body],
      [v.secret, { ...headersOf(v), [WEBHOOK_HEADERS.signature]: 'v1,' + '\u0000'.repeat(10_000) }, v.body],
    ];
    for (const [secret, headers, body] of hostile) {
      const result = (verifyWebhook as (...args: unknown[]) => ReturnType<typeof verifyWebhook>)(secret, headers, body, { now });
      expect(result.ok).toBe(false);
    }
  });
});
