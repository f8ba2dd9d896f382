import type { BounceReport } from '@mailcast/core';
import { createHash, createVerify, type KeyObject } from 'node:crypto';
import { checkFresh, isObject, malformed, parseJson, str, unauthentic } from './inbound-error';
import { providerReport, type VerifiedNotification } from './verified-notification';

/**
 * SendGrid's signed event webhook (docs/bounces.md): `X-Twilio-Email-Event-Webhook-Signature` is
 * the base64 DER ECDSA P-256 / SHA-256 signature of the timestamp header followed by the raw
 * body. A timestamp more than 5 minutes away is refused. The replay key is the hash of what was
 * signed, not the signature: an ECDSA signature can be altered into another valid one.
 */
export function verifySendgrid(
  raw: Buffer,
  signature: string | undefined,
  timestamp: string | undefined,
  publicKey: KeyObject,
  nowMs: number,
): VerifiedNotification {
  if (!signature || !timestamp || !/^\d{1,12}$/.test(timestamp)) throw malformed('Signature or timestamp header is missing');
  const verifier = createVerify('sha256');
  verifier.update(timestamp);
  verifier.update(raw);
  let valid = false;
  try {
    valid = verifier.verify(publicKey, Buffer.from(signature, 'base64'));
  } catch {
    valid = false;
  }
  if (!valid) throw unauthentic('Signature does not verify');
  checkFresh(Number(timestamp) * 1000, nowMs);
  const events = parseJson(raw);
  if (!Array.isArray(events)) throw malformed('Body must be an array of events');
  const replayKey = createHash('sha256').update(timestamp).update(raw).digest('hex');
  return { replayKey, reports: events.flatMap(sendgridReport) };
}

function sendgridReport(event: unknown): BounceReport[] {
  if (!isObject(event)) return [];
  return providerReport('sendgrid', {
    complaint: event.event === 'spamreport',
    bounce: event.event === 'bounce',
    temporary: event.type === 'blocked',
    // smtp-id is the Message-ID header of the email as it was handed to SendGrid.
    messageId: str(event['smtp-id']),
    email: str(event.email),
    reason: str(event.reason) ?? '',
  });
}
