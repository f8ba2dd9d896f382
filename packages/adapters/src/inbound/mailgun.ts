import type { BounceReport } from '@mailcast/core';
import { createHmac } from 'node:crypto';
import { checkFresh, isObject, malformed, parseJson, sameSecret, str, unauthentic } from './inbound-error';
import { providerReport, type VerifiedNotification } from './verified-notification';

/**
 * Mailgun's webhook (docs/bounces.md): the body carries `signature: {timestamp, token, signature}`,
 * the hex HMAC-SHA256 of timestamp and token concatenated, keyed with the webhook signing key.
 * A timestamp more than 5 minutes away is refused; the token is the replay key (single use).
 */
export function verifyMailgun(raw: Buffer, signingKey: string, nowMs: number): VerifiedNotification {
  const body = parseJson(raw);
  if (!isObject(body) || !isObject(body.signature)) throw malformed('Body has no signature');
  const timestamp = str(body.signature.timestamp) ?? (typeof body.signature.timestamp === 'number' ? String(body.signature.timestamp) : null);
  const token = str(body.signature.token);
  const signature = str(body.signature.signature);
  if (timestamp === null || !/^\d{1,12}$/.test(timestamp) || token === null || token === '' || signature === null) {
    throw malformed('Signature fields are missing or malformed');
  }
  const expected = createHmac('sha256', signingKey)
    .update(timestamp + token)
    .digest('hex');
  if (!sameSecret(expected, signature.toLowerCase())) throw unauthentic('Signature does not verify');
  checkFresh(Number(timestamp) * 1000, nowMs);
  return { replayKey: token, reports: mailgunReports(body['event-data']) };
}

function mailgunReports(event: unknown): BounceReport[] {
  if (!isObject(event)) throw malformed('Body has no event-data');
  const message = isObject(event.message) ? event.message : {};
  const headers = isObject(message.headers) ? message.headers : {};
  const status = isObject(event['delivery-status']) ? event['delivery-status'] : {};
  return providerReport('mailgun', {
    complaint: event.event === 'complained',
    bounce: event.event === 'failed',
    temporary: event.severity === 'temporary',
    messageId: str(headers['message-id']),
    email: str(event.recipient),
    reason: str(status.description) || str(status.message) || str(event.reason) || '',
  });
}
