import { generateWebhookSecret, redactSecret } from './secret';
import { errorOf } from './test-support/catch-domain-error';

describe('generateWebhookSecret', () => {
  test('whsec_ + standard Base64 of the 32 bytes', () => {
    const bytes = Uint8Array.from({ length: 32 }, (_, i) => i * 8);
    const secret = generateWebhookSecret(bytes);
    expect(secret).toBe('whsec_AAgQGCAoMDhASFBYYGhweICIkJigqLC4wMjQ2ODo8Pg=');
    expect(secret).toHaveLength(50);
  });

  test('uses + and / (standard alphabet), not base64url', () => {
    expect(generateWebhookSecret(new Uint8Array(32).fill(0xfb))).toBe(`whsec_${'+/v7'.repeat(10)}+/s=`);
  });

  test.each([0, 16, 31, 33])('%i bytes are refused', (n) => {
    expect(errorOf(() => generateWebhookSecret(new Uint8Array(n))).code).toBe('invalid_secret_entropy');
  });
});

describe('redactSecret', () => {
  test.each([
    // 50 characters: 40 stars keep the length.
    ['whsec_AAgQGCAoMDhASFBYYGhweICIkJigqLC4wMjQ2ODo8Pg=', `whsec_${'*'.repeat(40)}8Pg=`],
    // 6 + 10: max(16 − 10, 4) = 6 stars.
    ['whsec_0123456789', 'whsec_******6789'],
    // 6 + 8: the minimum of 4 stars.
    ['whsec_abcdefgh', 'whsec_****efgh'],
    // Fewer than 8 characters after the prefix: stars only.
    ['whsec_x', 'whsec_****'],
    ['whsec_abcdefg', 'whsec_****'],
    // Without the prefix: same count of stars, then the last four.
    ['plain-secret-without-prefix', `${'*'.repeat(17)}efix`],
    ['short', '****'],
  ])('%j → %j', (secret, expected) => {
    expect(redactSecret(secret)).toBe(expected);
  });
});
