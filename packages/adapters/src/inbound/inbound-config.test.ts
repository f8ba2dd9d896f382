import { generateKeyPairSync } from 'node:crypto';
import { loadInboundConfig } from './inbound-config';

describe('loadInboundConfig (docs/bounces.md)', () => {
  it('leaves every receiver and the listener off by default', () => {
    expect(loadInboundConfig({})).toEqual({ ses: null, postmark: null, mailgun: null, sendgrid: null, smtp: null });
  });

  it('reads every variable', () => {
    const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey;
    const config = loadInboundConfig({
      INBOUND_SES_TOPIC_ARNS: 'arn:a, arn:b',
      INBOUND_POSTMARK_USERNAME: 'u',
      INBOUND_POSTMARK_PASSWORD: 'p',
      INBOUND_MAILGUN_SIGNING_KEY: 'k',
      INBOUND_SENDGRID_PUBLIC_KEY: key.export({ format: 'der', type: 'spki' }).toString('base64'),
      INBOUND_SMTP_PORT: '2525',
    });
    expect(config.ses).toEqual({ topicArns: ['arn:a', 'arn:b'], certificatePem: null, snsOriginOverride: null });
    expect(config.postmark).toEqual({ username: 'u', password: 'p' });
    expect(config.mailgun).toEqual({ signingKey: 'k' });
    expect(config.sendgrid?.publicKey.asymmetricKeyType).toBe('ec');
    expect(config.smtp).toEqual({ port: 2525, host: '0.0.0.0' });
  });

  it('refuses a bad value with a message naming the variable and never the value', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    expect(() => loadInboundConfig({ INBOUND_SENDGRID_PUBLIC_KEY: rsa })).toThrow(/"INBOUND_SENDGRID_PUBLIC_KEY" must be an ECDSA P-256/);
    expect(() => loadInboundConfig({ INBOUND_SENDGRID_PUBLIC_KEY: 'secret-garbage' })).not.toThrow(/secret-garbage/);
    expect(() => loadInboundConfig({ INBOUND_POSTMARK_USERNAME: 'u' })).toThrow(/set together/);
    expect(() => loadInboundConfig({ INBOUND_SMTP_PORT: '70000' })).toThrow(/"INBOUND_SMTP_PORT"/);
  });
});
