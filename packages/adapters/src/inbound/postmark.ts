import type { BounceReport } from '@mailcast/core';
import { isObject, malformed, parseJson, sameSecret, str, unauthentic } from './inbound-error';
import { providerReport, type VerifiedNotification } from './verified-notification';

export const POSTMARK_METADATA_KEY = 'mailcast-message-id';

/** Postmark bounce types that mean the address will not work (docs/bounces.md); other bounce types are soft. */
const HARD = new Set(['HardBounce', 'BadEmailAddress', 'ManuallyDeactivated', 'Blocked', 'DMARCPolicy']);
/** Not about delivery: ignored. */
const IGNORED = new Set([
  'AutoResponder',
  'Subscribe',
  'Unsubscribe',
  'AddressChange',
  'OpenRelayTest',
  'ChallengeVerification',
  'InboundError',
  'SMTPApiError',
]);

/**
 * Postmark signs nothing: its webhooks are secured with HTTP basic auth (credentials in the
 * webhook URL), compared in constant time. Postmark's bounce `ID` is the replay key.
 */
export function verifyPostmark(raw: Buffer, authorization: string | undefined, username: string, password: string): VerifiedNotification {
  const m = /^Basic ([A-Za-z0-9+/=]+)$/.exec(authorization ?? '');
  const given = m ? Buffer.from(m[1]!, 'base64').toString('utf8') : '';
  if (!sameSecret(given, `${username}:${password}`)) throw unauthentic('Credentials do not match');
  const body = parseJson(raw);
  if (!isObject(body)) throw malformed('Body must be an object');
  const id = typeof body.ID === 'number' || typeof body.ID === 'string' ? `${str(body.RecordType) ?? ''}:${body.ID}` : null;
  return { replayKey: id, reports: postmarkReports(body) };
}

function postmarkReports(body: Record<string, unknown>): BounceReport[] {
  const type = str(body.Type) ?? '';
  // Postmark gives the email an id of its own (MessageID); ours comes back as metadata, from the
  // X-PM-Metadata-mailcast-message-id header the sending path adds for Postmark's servers.
  const metadata = isObject(body.Metadata) ? body.Metadata : {};
  const messageId = str(metadata[POSTMARK_METADATA_KEY]) ?? str(body.MessageID);
  return providerReport('postmark', {
    complaint: body.RecordType === 'SpamComplaint' || type === 'SpamComplaint',
    bounce: body.RecordType === 'Bounce' && !IGNORED.has(type),
    temporary: !HARD.has(type),
    messageId,
    email: str(body.Email),
    reason: str(body.Details) || str(body.Description) || type,
  });
}
