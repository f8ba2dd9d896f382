import { snsStringToSign } from '@mailcast/adapters';
import { execFileSync } from 'node:child_process';
import { createHmac, createSign, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/*
 * Requests as each provider documents and signs them, signed here with keys the test generates:
 * Mailgun (HMAC-SHA256 of timestamp + token), SendGrid (ECDSA P-256 over timestamp + body),
 * Postmark (basic auth) and Amazon SNS (RSA over the string to sign, with an X.509 certificate).
 */

export const MAILGUN_KEY = `key-${randomBytes(16).toString('hex')}`;
export const POSTMARK = { username: 'postmark', password: randomBytes(12).toString('hex') };
const ecdsa = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
export const SENDGRID_PUBLIC_KEY = ecdsa.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
export const SES_TOPIC = 'arn:aws:sns:us-east-1:123456789012:mailcast-ses';
export const SNS_CERT_URL = 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem';

/** A self-signed certificate for the SNS signer (openssl: node:crypto cannot issue one). */
export function snsSigner(): { certificatePem: string; privateKeyPem: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sns-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
        '-subj',
        '/CN=sns.amazonaws.com',
        '-days',
        '2',
      ],
      { stdio: 'ignore' },
    );
    return { certificatePem: readFileSync(path.join(dir, 'cert.pem'), 'utf8'), privateKeyPem: readFileSync(path.join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function mailgunBody(eventData: object, options: { key?: string; timestamp?: number; token?: string } = {}) {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const token = options.token ?? randomBytes(25).toString('hex');
  const signature = createHmac('sha256', options.key ?? MAILGUN_KEY)
    .update(timestamp + token)
    .digest('hex');
  return { signature: { timestamp, token, signature }, 'event-data': eventData };
}

export function sendgridRequest(events: object[], options: { timestamp?: number; privateKey?: typeof ecdsa.privateKey } = {}) {
  const body = JSON.stringify(events);
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = sign('sha256', Buffer.from(timestamp + body), options.privateKey ?? ecdsa.privateKey).toString('base64');
  return {
    body,
    headers: { 'x-twilio-email-event-webhook-signature': signature, 'x-twilio-email-event-webhook-timestamp': timestamp },
  };
}

export const postmarkAuth = (username = POSTMARK.username, password = POSTMARK.password) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

export function snsMessage(
  privateKeyPem: string,
  fields: { Type: 'Notification' | 'SubscriptionConfirmation'; Message: string; Subject?: string; SubscribeURL?: string; Token?: string },
  options: { version?: '1' | '2'; timestamp?: Date; topic?: string } = {},
): Record<string, string> {
  const message: Record<string, string> = {
    ...fields,
    MessageId: `${randomBytes(4).toString('hex')}-${randomBytes(2).toString('hex')}-4000-8000-${randomBytes(6).toString('hex')}`,
    TopicArn: options.topic ?? SES_TOPIC,
    Timestamp: (options.timestamp ?? new Date()).toISOString(),
    SignatureVersion: options.version ?? '2',
    SigningCertURL: SNS_CERT_URL,
  };
  const signer = createSign(message.SignatureVersion === '1' ? 'RSA-SHA1' : 'RSA-SHA256');
  signer.update(snsStringToSign(message, fields.Type));
  message.Signature = signer.sign(privateKeyPem, 'base64');
  return message;
}

/** An SES notification as SNS carries it in `Message`. */
export function sesNotification(kind: 'Bounce' | 'Complaint', email: string, messageId: string, bounceType: 'Permanent' | 'Transient' = 'Permanent'): string {
  const mail = {
    timestamp: new Date().toISOString(),
    source: 'news@example.com',
    messageId: '0100018c-ses-id-000000',
    destination: [email],
    headersTruncated: false,
    headers: [
      { name: 'Message-ID', value: messageId },
      { name: 'To', value: email },
    ],
    commonHeaders: { from: ['news@example.com'], to: [email], messageId },
  };
  return JSON.stringify(
    kind === 'Bounce'
      ? {
          notificationType: 'Bounce',
          bounce: {
            bounceType,
            bounceSubType: bounceType === 'Permanent' ? 'General' : 'MailboxFull',
            bouncedRecipients: [{ emailAddress: email, action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }],
            timestamp: new Date().toISOString(),
            feedbackId: '0100018c-feedback',
          },
          mail,
        }
      : {
          notificationType: 'Complaint',
          complaint: { complainedRecipients: [{ emailAddress: email }], timestamp: new Date().toISOString(), feedbackId: 'f', complaintFeedbackType: 'abuse' },
          mail,
        },
  );
}
