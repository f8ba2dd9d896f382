import type { BounceReport } from '@mailcast/core';
import { createVerify, X509Certificate } from 'node:crypto';
import { InboundRefused, isObject, malformed, parseJson, str, unauthentic } from './inbound-error';
import type { VerifiedNotification } from './verified-notification';

/** Only certificates and confirmations at an SNS endpoint of a region: `https://sns.<region>.amazonaws.com/…`. */
const SNS_ORIGIN = /^https:\/\/sns\.[a-z]{2}(-[a-z]+)+-\d\.amazonaws\.com(?=\/)/;
const CERT_PATH = /^\/[A-Za-z0-9._/-]+\.pem$/;
/** SNS retries a delivery for up to an hour with the first signature: older messages are stale. */
export const SNS_TOLERANCE_MS = 60 * 60 * 1000;
const MAX_CACHED_CERTIFICATES = 32;
const MAX_FETCH_BYTES = 64 * 1024;

export interface SnsSettings {
  topicArns: readonly string[];
  /** Used instead of any downloaded certificate (tests). */
  certificatePem: string | null;
  /** Tests: SNS URLs (once validated) are fetched from this origin instead. */
  snsOriginOverride: string | null;
}

type SnsType = 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';
const FIELDS: Record<SnsType, readonly string[]> = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
};

/** The SNS string to sign: each present field's name and value on lines of their own, in order. */
export function snsStringToSign(message: Record<string, unknown>, type: SnsType): string {
  return FIELDS[type]
    .filter((name) => !(name === 'Subject' && typeof message.Subject !== 'string'))
    .map((name) => `${name}\n${String(message[name])}\n`)
    .join('');
}

/**
 * Amazon SES notifications through SNS (docs/bounces.md). The SNS message is verified with the
 * certificate named by `SigningCertURL`, accepted only from an SNS host and cached per URL
 * (or the configured certificate), against the string to sign of its type (SignatureVersion 1:
 * SHA1withRSA, 2: SHA256withRSA); the topic must be configured; the `MessageId` is the replay key.
 */
export class SnsReceiver {
  private readonly certificates = new Map<string, Promise<string>>();

  constructor(private readonly settings: SnsSettings) {}

  async verify(raw: Buffer, nowMs: number): Promise<VerifiedNotification & { subscribeUrl: string | null }> {
    const message = parseJson(raw);
    if (!isObject(message)) throw malformed('Body must be an SNS message');
    const type = str(message.Type);
    if (type !== 'Notification' && type !== 'SubscriptionConfirmation' && type !== 'UnsubscribeConfirmation') {
      throw malformed('Unknown SNS message type');
    }
    for (const name of FIELDS[type]) {
      if (name !== 'Subject' && typeof message[name] !== 'string') throw malformed(`SNS message has no ${name}`);
    }
    const signature = str(message.Signature);
    const version = str(message.SignatureVersion);
    const certUrl = str(message.SigningCertURL);
    if (signature === null || (version !== '1' && version !== '2') || certUrl === null) throw malformed('SNS signature fields are missing');
    if (!this.settings.topicArns.includes(String(message.TopicArn))) throw unauthentic('Topic is not configured');
    const pem = await this.certificate(certUrl);
    const verifier = createVerify(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256');
    verifier.update(snsStringToSign(message, type), 'utf8');
    let valid = false;
    try {
      valid = verifier.verify(pem, Buffer.from(signature, 'base64'));
    } catch {
      valid = false;
    }
    if (!valid) throw unauthentic('Signature does not verify');
    const timestamp = Date.parse(String(message.Timestamp));
    if (!Number.isFinite(timestamp)) throw malformed('Timestamp is malformed');
    if (Math.abs(nowMs - timestamp) > SNS_TOLERANCE_MS) throw unauthentic('Timestamp is too old or in the future');
    const subscribeUrl = type === 'SubscriptionConfirmation' ? String(message.SubscribeURL) : null;
    if (subscribeUrl !== null && !SNS_ORIGIN.test(subscribeUrl)) throw malformed('SubscribeURL is not an SNS address');
    return {
      replayKey: String(message.MessageId),
      subscribeUrl,
      reports: type === 'Notification' ? sesReports(String(message.Message)) : [],
    };
  }

  /** Confirms a subscription by visiting its (verified, SNS-hosted) SubscribeURL. */
  async confirm(subscribeUrl: string): Promise<void> {
    try {
      await this.fetchText(subscribeUrl);
    } catch {
      throw new InboundRefused(502, 'Subscription could not be confirmed');
    }
  }

  private certificate(url: string): Promise<string> {
    if (this.settings.certificatePem !== null) return Promise.resolve(this.settings.certificatePem);
    const origin = SNS_ORIGIN.exec(url);
    if (origin === null || !CERT_PATH.test(url.slice(origin[0].length))) throw unauthentic('SigningCertURL is not an SNS certificate');
    let cached = this.certificates.get(url);
    if (cached === undefined) {
      if (this.certificates.size >= MAX_CACHED_CERTIFICATES) this.certificates.delete(this.certificates.keys().next().value!);
      cached = this.fetchText(url).then((pem) => new X509Certificate(pem).toString());
      // A failed download is not kept: the next message tries again.
      cached.catch(() => this.certificates.delete(url));
      this.certificates.set(url, cached);
    }
    return cached.catch(() => {
      throw unauthentic('Signing certificate could not be fetched');
    });
  }

  private async fetchText(url: string): Promise<string> {
    const origin = SNS_ORIGIN.exec(url);
    if (origin === null) throw malformed('Not an SNS address');
    const target = this.settings.snsOriginOverride === null ? url : this.settings.snsOriginOverride + url.slice(origin[0].length);
    const res = await fetch(target, { redirect: 'error', signal: AbortSignal.timeout(10_000) });
    const body = Buffer.from(await res.arrayBuffer());
    if (!res.ok || body.length > MAX_FETCH_BYTES) throw new Error(`SNS answered ${res.status}`);
    return body.toString('utf8');
  }
}

/** The bounce or complaint an SES notification (or event) carries, one report per recipient. */
export function sesReports(text: string): BounceReport[] {
  let ses: unknown;
  try {
    ses = JSON.parse(text);
  } catch {
    throw malformed('SES notification is not JSON');
  }
  if (!isObject(ses)) throw malformed('SES notification must be an object');
  const type = str(ses.notificationType) ?? str(ses.eventType);
  const mail = isObject(ses.mail) ? ses.mail : {};
  const headers = Array.isArray(mail.headers) ? mail.headers : [];
  const header = headers.find((h) => isObject(h) && String(h.name).toLowerCase() === 'message-id');
  const common = isObject(mail.commonHeaders) ? mail.commonHeaders : {};
  const messageId = (isObject(header) ? str(header.value) : null) ?? str(common.messageId);
  if (type === 'Bounce' && isObject(ses.bounce)) {
    const kind = ses.bounce.bounceType === 'Permanent' ? 'hard_bounce' : 'soft_bounce';
    const recipients = Array.isArray(ses.bounce.bouncedRecipients) ? ses.bounce.bouncedRecipients : [];
    return recipients.filter(isObject).map((r) => ({
      source: 'ses',
      kind,
      messageId,
      email: str(r.emailAddress),
      reason: str(r.diagnosticCode) ?? `${String(ses.bounce && (ses.bounce as Record<string, unknown>).bounceSubType)}`,
    }));
  }
  if (type === 'Complaint' && isObject(ses.complaint)) {
    const recipients = Array.isArray(ses.complaint.complainedRecipients) ? ses.complaint.complainedRecipients : [];
    const reason = str(ses.complaint.complaintFeedbackType) ?? 'complaint';
    return recipients.filter(isObject).map((r) => ({ source: 'ses', kind: 'complaint' as const, messageId, email: str(r.emailAddress), reason }));
  }
  return [];
}
