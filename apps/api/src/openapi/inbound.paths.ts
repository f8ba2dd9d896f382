import { json, type Json, publicOperation } from './operation';
import { ref } from './schemas';

export const INBOUND = 'Bounce receivers';

const result = {
  type: 'object',
  additionalProperties: false,
  required: ['recorded', 'duplicate', 'unknown'],
  properties: {
    recorded: { type: 'integer', description: 'Bounces and complaints recorded.' },
    duplicate: { type: 'integer', description: 'Already recorded for that recipient (counted once).' },
    unknown: { type: 'integer', description: 'Matching no broadcast recipient.' },
  },
} as const;

const error = (description: string) => ({ description, content: json(ref('Error')) });

function receiver(provider: string, operationId: string, verification: string, body: Json): Json {
  return {
    post: {
      ...publicOperation({
        operationId,
        summary: `${provider} bounce and complaint webhook`,
        description: `${verification} A hard bounce or complaint suppresses the address in the channel, deactivates or unsubscribes the subscriber, counts in the broadcast's statistics and emits email.bounced / email.complained and subscriber.bounced / subscriber.complained. 404 when the receiver is not configured.`,
        tag: INBOUND,
        responses: {
          '200': { description: 'Verified; what it recorded.', content: json(result as unknown as Json) },
          '400': error('Malformed request.'),
          '401': error('Forged, stale or replayed.'),
          '404': error('This receiver is not configured.'),
          '413': error('Body larger than 1 MB.'),
          '429': error('Too many requests from this address.'),
        },
      }),
      requestBody: { required: true, content: body },
    },
  };
}

const anyJson = { 'application/json': { schema: { type: ['object', 'array'] } } };

/** The public receivers of providers' bounce and complaint notifications (docs/bounces.md). */
export const INBOUND_PATHS: Record<string, Json> = {
  '/inbound/ses': receiver(
    'Amazon SES (through SNS)',
    'receiveSesNotification',
    'An SNS message (Notification, SubscriptionConfirmation), verified with the SNS signing certificate (fetched only from sns.<region>.amazonaws.com) for a configured topic; SubscriptionConfirmation is confirmed (502 if it cannot be).',
    { 'text/plain': { schema: { type: 'string' } }, ...anyJson },
  ),
  '/inbound/postmark': receiver('Postmark', 'receivePostmarkNotification', 'A bounce or spam complaint record, authenticated with HTTP basic auth.', anyJson),
  '/inbound/mailgun': receiver(
    'Mailgun',
    'receiveMailgunNotification',
    'An event with its `signature` (HMAC-SHA256 of timestamp and token); at most 5 minutes old; each token once.',
    anyJson,
  ),
  '/inbound/sendgrid': receiver(
    'SendGrid',
    'receiveSendgridNotification',
    'A batch of events signed with ECDSA (X-Twilio-Email-Event-Webhook-Signature over the timestamp header and the body); at most 5 minutes old.',
    anyJson,
  ),
};
