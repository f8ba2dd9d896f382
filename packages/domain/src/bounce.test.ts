import { dsnBounceKind, messageIdRecipient, normalizeMessageId, parseVerpAddress, providerHeaders, verifyVerpToken, verpAddress } from './bounce';

describe('bounce matching', () => {
  const secret = Uint8Array.from({ length: 32 }, (_, i) => i);

  it('normalises a Message-ID and reads the recipient key a broadcast message carries', () => {
    expect(normalizeMessageId(' 12.34.abc@mailcast.example ')).toBe('<12.34.abc@mailcast.example>');
    expect(normalizeMessageId('<12.34.abc@x>')).toBe('<12.34.abc@x>');
    expect(normalizeMessageId('a b')).toBeNull();
    expect(messageIdRecipient('<12.34.abc@x>')).toEqual({ broadcastId: 12, subscriberId: 34 });
    expect(messageIdRecipient('<uuid@mtasv.net>')).toBeNull();
  });

  it('VERP addresses verify under their secret only, whatever the case of the local part', () => {
    const address = verpAddress(secret, 42, 'bounces.example.com');
    expect(address).toMatch(/^bounces\+42-[0-9a-f]{26}@bounces\.example\.com$/);
    const parsed = parseVerpAddress(address.toUpperCase())!;
    expect(parsed.recipientId).toBe(42);
    expect(verifyVerpToken(secret, parsed.token)).toBe(true);
    expect(
      verifyVerpToken(
        Uint8Array.from({ length: 32 }, () => 7),
        parsed.token,
      ),
    ).toBe(false);
    expect(verifyVerpToken(secret, parsed.token.replace(/^42-/, '43-'))).toBe(false);
    expect(parseVerpAddress('postmaster@bounces.example.com')).toBeNull();
  });

  it('classifies DSN actions and status codes', () => {
    expect(dsnBounceKind('failed', '5.1.1')).toBe('hard_bounce');
    expect(dsnBounceKind('Failed', '4.2.2')).toBe('soft_bounce');
    expect(dsnBounceKind('delayed', '4.4.1')).toBeNull();
    expect(dsnBounceKind('delivered', '2.0.0')).toBeNull();
  });

  it('asks Postmark, and only Postmark, to hand our Message-ID back as metadata', () => {
    expect(providerHeaders('smtp.postmarkapp.com', '<1.2.x@y>')).toEqual({ 'X-PM-Metadata-mailcast-message-id': '<1.2.x@y>' });
    expect(providerHeaders('smtp.sendgrid.net', '<1.2.x@y>')).toEqual({});
    expect(providerHeaders('evilpostmarkapp.com', '<1.2.x@y>')).toEqual({});
  });
});
