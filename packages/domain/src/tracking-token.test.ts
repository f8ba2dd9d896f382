import { trackingToken, trackingTokenRecipient, verifyTrackingToken } from './tracking-token';

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
