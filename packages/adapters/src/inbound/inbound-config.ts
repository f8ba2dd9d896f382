import { createPublicKey, type KeyObject } from 'node:crypto';

/**
 * The bounce and complaint receivers' settings (docs/bounces.md), one set per installation, from
 * the environment. A receiver whose secret is not set is off (404). Never echoes a value.
 */
export interface InboundConfig {
  ses: { topicArns: string[]; certificatePem: string | null; snsOriginOverride: string | null } | null;
  postmark: { username: string; password: string } | null;
  mailgun: { signingKey: string } | null;
  sendgrid: { publicKey: KeyObject } | null;
  /** The dispatcher's DSN listener. */
  smtp: { port: number; host: string } | null;
}

const bad = (name: string, what: string) => new Error(`Invalid configuration: "${name}" ${what}`);

function text(env: NodeJS.ProcessEnv, name: string): string | null {
  const value = env[name];
  return value === undefined || value.trim() === '' ? null : value.trim();
}

/** SendGrid shows its verification key as the base64 of a DER SubjectPublicKeyInfo; PEM is accepted too. */
function sendgridKey(raw: string): KeyObject {
  try {
    const key = raw.includes('BEGIN PUBLIC KEY') ? createPublicKey(raw) : createPublicKey({ key: Buffer.from(raw, 'base64'), format: 'der', type: 'spki' });
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new Error('not P-256');
    return key;
  } catch {
    throw bad('INBOUND_SENDGRID_PUBLIC_KEY', 'must be an ECDSA P-256 public key (base64 DER or PEM)');
  }
}

export function loadInboundConfig(env: NodeJS.ProcessEnv = process.env): InboundConfig {
  const topics = text(env, 'INBOUND_SES_TOPIC_ARNS');
  const postmarkUser = text(env, 'INBOUND_POSTMARK_USERNAME');
  const postmarkPassword = text(env, 'INBOUND_POSTMARK_PASSWORD');
  if ((postmarkUser === null) !== (postmarkPassword === null)) {
    throw bad('INBOUND_POSTMARK_USERNAME', 'and "INBOUND_POSTMARK_PASSWORD" must be set together');
  }
  const mailgun = text(env, 'INBOUND_MAILGUN_SIGNING_KEY');
  const sendgrid = text(env, 'INBOUND_SENDGRID_PUBLIC_KEY');
  const smtpPort = text(env, 'INBOUND_SMTP_PORT');
  let port: number | null = null;
  if (smtpPort !== null) {
    port = Number(smtpPort);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw bad('INBOUND_SMTP_PORT', 'must be a port number');
  }
  return {
    ses:
      topics === null
        ? null
        : {
            topicArns: topics
              .split(',')
              .map((t) => t.trim())
              .filter((t) => t !== ''),
            certificatePem: text(env, 'INBOUND_SES_CERTIFICATE'),
            snsOriginOverride: text(env, 'INBOUND_SES_SNS_ORIGIN'),
          },
    postmark: postmarkUser !== null && postmarkPassword !== null ? { username: postmarkUser, password: postmarkPassword } : null,
    mailgun: mailgun === null ? null : { signingKey: mailgun },
    sendgrid: sendgrid === null ? null : { publicKey: sendgridKey(sendgrid) },
    smtp: port === null ? null : { port, host: text(env, 'INBOUND_SMTP_HOST') ?? '0.0.0.0' },
  };
}
