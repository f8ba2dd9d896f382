import {
  trackingToken,
  trackingTokenRecipient,
  transactionalTokenId,
  transactionalUnsubscribeToken,
  verifyTrackingToken,
  verifyTransactionalUnsubscribeToken,
  verifyWebViewToken,
  webViewToken,
  webViewTokenRecipient,
} from './tracking-token';

const secret = Buffer.alloc(32, 7);

describe('tracking tokens', () => {
  it('names the recipient and verifies under its broadcast secret only', () => {
    const token = trackingToken(secret, 42);
    expect(token).toMatch(/^42-[A-Za-z0-9_-]{22}$/);
    expect(trackingTokenRecipient(token)).toBe(42);
    expect(verifyTrackingToken(secret, token)).toBe(true);
    expect(verifyTrackingToken(Buffer.alloc(32, 8), token)).toBe(false);
  });

  it('refuses a token moved to another recipient, altered, or malformed', () => {
    const token = trackingToken(secret, 42);
    const mac = token.split('-')[1]!;
    expect(verifyTrackingToken(secret, `43-${mac}`)).toBe(false);
    expect(verifyTrackingToken(secret, `42-${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`)).toBe(false);
    for (const bad of ['', '42', '042-' + mac, '42-' + mac + 'x', 'x-' + mac]) {
      expect(trackingTokenRecipient(bad)).toBeNull();
      expect(verifyTrackingToken(secret, bad)).toBe(false);
    }
  });
});

describe('transactional unsubscribe tokens', () => {
  it('names the transactional and verifies under its own secret only', () => {
    const token = transactionalUnsubscribeToken(secret, 42);
    expect(token).toMatch(/^t42-[A-Za-z0-9_-]{22}$/);
    expect(transactionalTokenId(token)).toBe(42);
    expect(verifyTransactionalUnsubscribeToken(secret, token)).toBe(true);
    expect(verifyTransactionalUnsubscribeToken(Buffer.alloc(32, 8), token)).toBe(false);
  });

  it('is never a broadcast token, and a broadcast token is never one', () => {
    const token = transactionalUnsubscribeToken(secret, 42);
    expect(trackingTokenRecipient(token)).toBeNull();
    expect(verifyTrackingToken(secret, token.slice(1))).toBe(false);
    expect(transactionalTokenId(trackingToken(secret, 42))).toBeNull();
    expect(verifyTransactionalUnsubscribeToken(secret, `t${trackingToken(secret, 42)}`)).toBe(false);
  });

  it('refuses a token moved to another transactional, altered, or malformed', () => {
    const token = transactionalUnsubscribeToken(secret, 42);
    const mac = token.split('-')[1]!;
    expect(verifyTransactionalUnsubscribeToken(secret, `t43-${mac}`)).toBe(false);
    expect(verifyTransactionalUnsubscribeToken(secret, `t42-${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`)).toBe(false);
    for (const bad of ['', 't42', 't042-' + mac, 't42-' + mac + 'x', 'tx-' + mac, 'T42-' + mac]) {
      expect(transactionalTokenId(bad)).toBeNull();
      expect(verifyTransactionalUnsubscribeToken(secret, bad)).toBe(false);
    }
  });
});

describe('web-view tokens (docs/archive.md)', () => {
  it('names the recipient, verifies under its broadcast secret only, and is never a tracking token', () => {
    const token = webViewToken(secret, 42);
    expect(token).toMatch(/^w42-[A-Za-z0-9_-]{22}$/);
    expect(webViewTokenRecipient(token)).toBe(42);
    expect(verifyWebViewToken(secret, token)).toBe(true);
    expect(verifyWebViewToken(Buffer.alloc(32, 8), token)).toBe(false);
    expect(trackingTokenRecipient(token)).toBeNull();
    expect(verifyTrackingToken(secret, token.slice(1))).toBe(false);
    expect(verifyWebViewToken(secret, `w${trackingToken(secret, 42)}`)).toBe(false);
    const mac = token.split('-')[1]!;
    for (const bad of ['', 'w42', `w43-${mac}`, `w042-${mac}`, `W42-${mac}`, `w42-${mac}x`]) expect(verifyWebViewToken(secret, bad)).toBe(false);
  });
});
