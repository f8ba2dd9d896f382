import { SMTP_TLS_MODES } from '@mailcast/domain';
import { copyToChannelSchema, dkimSchema, emailServerSchema } from '../http/email-servers/email-servers.schemas';
import { boolean, closed, dateTime, integer, nestedOrFlat, nullableString, page, ref, requestSchema, string, warned, type Schema } from './schema-helpers';

const limitField = (unit: string): Schema => ({
  type: ['integer', 'null'],
  minimum: 1,
  description: `At most this many messages per ${unit} through the server, all dispatchers together; null: no limit.`,
});
const emailServerLimits: Record<string, Schema> = {
  max_per_second: limitField('second'),
  max_per_minute: limitField('minute'),
  max_per_hour: limitField('hour'),
  max_per_day: limitField('day'),
};
const BOUNCE_DOMAIN =
  'Set: broadcast emails through the server have the envelope sender `bounces+<token>@<bounce_domain>`, whose delivery status notifications the inbound SMTP listener matches to their recipient.';
const emailServerInput = requestSchema(emailServerSchema);

/** Email servers (SMTP) and their DKIM keys. Spread into SCHEMAS by schemas.ts. */
export const EMAIL_SERVER_SCHEMAS: Record<string, Schema> = {
  EmailServer: warned(
    closed({
      id: integer(),
      name: nullableString(),
      host: string(),
      port: integer(),
      tls: ref('SmtpTls'),
      smtp_username: nullableString(),
      smtp_password: nullableString(
        'Write-only; a stored password is shown as exactly 8 `•`, nothing of its value or length. Sending the 8 `•` back leaves the password unchanged, unless the same write changes `host`, `port` or `tls`, which clears a password it does not give again.',
      ),
      from_email: nullableString(),
      from_name: nullableString(),
      ...emailServerLimits,
      dkim_domain: nullableString(),
      dkim_selector: nullableString(),
      bounce_domain: nullableString(BOUNCE_DOMAIN),
      dkim_key_present: boolean('A DKIM key was generated: every message through the server is signed.'),
      active: boolean(),
      deactivated_reason: {
        type: ['string', 'null'],
        enum: ['hard_bounce_rate', 'complaint_rate', null],
        description:
          'Why the reputation guard took the server out of rotation (its limits over the last 24 h, docs/reputation-guard.md); null when active or switched off by a person, and cleared by `active: true`.',
      },
      created_at: dateTime(),
      updated_at: dateTime(),
    }),
  ),
  SmtpTls: {
    type: 'string',
    enum: [...SMTP_TLS_MODES],
    description:
      '`starttls` (default): the server must offer STARTTLS, no AUTH before it; `implicit`: TLS from the first byte; `none`: only for hosts that stand for loopback addresses (`localhost`, `*.localhost`, 127.0.0.0/8, ::1) or with SMTP_ALLOW_PLAINTEXT=true.',
  },
  EmailServerList: page('EmailServer'),
  // Required on create by newEmailServerBody ("can't be blank"), after joi: update shares the fields.
  EmailServerCreateInput: { ...emailServerInput, required: ['host', 'port'] },
  EmailServerUpdateInput: emailServerInput,
  EmailServerCreateBody: nestedOrFlat('email_server', 'EmailServerCreateInput'),
  EmailServerUpdateBody: nestedOrFlat('email_server', 'EmailServerUpdateInput'),
  SmtpCheck: closed({
    ok: boolean('The handshake (TLS as configured, AUTH if set) succeeded.'),
    message: string("On success, what was reached; on failure, one generic message for every cause (never the server's words)."),
  }),
  DkimKeyBody: requestSchema(dkimSchema),
  CopyToChannelBody: requestSchema(copyToChannelSchema),
  DkimRecord: closed({
    dkim_domain: string(),
    dkim_selector: string(),
    dns_record: closed({
      name: string('`<selector>._domainkey.<domain>`'),
      type: { const: 'TXT' },
      value: string('`v=DKIM1; k=rsa; p=<base64 public key>`'),
    }),
  }),
};
