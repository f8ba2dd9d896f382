import { TRANSACTIONAL_STATUSES } from '@mailcast/domain';
import { boolean, closed, dateTime, freeObject, integer, nullableDateTime, nullableString, ref, string, type Schema } from './schema-helpers';

/** Transactional emails. Spread into SCHEMAS by schemas.ts. */
export const TRANSACTIONAL_SCHEMAS: Record<string, Schema> = {
  TransactionalStatus: { type: 'string', enum: [...TRANSACTIONAL_STATUSES] },
  TransactionalInput: {
    type: 'object',
    description: 'Flat. `subject` and `body` are required unless `template_id` names a template that has them. Liquid sees `subscriber`, `data` and `unsubscribe_url` (empty unless `include_unsubscribe_link`).',
    properties: {
      to: string('The recipient; the subscriber is created on first send.'),
      subject: string(),
      body: string('Plain text; Liquid.'),
      html_body: nullableString('Liquid; values are HTML-escaped.'),
      preheader: nullableString(),
      reply_to: nullableString(),
      data: freeObject('In Liquid scope as `data`.'),
      subscriber: { type: 'object', properties: { first_name: nullableString(), last_name: nullableString(), custom_data: freeObject('Stored on a new subscriber.') } },
      include_unsubscribe_link: {
        type: 'boolean',
        default: false,
        description:
          'Adds a visible unsubscribe link to the text and HTML parts (unless the content already places `{{ unsubscribe_url }}`) and the `List-Unsubscribe` and `List-Unsubscribe-Post` (RFC 8058 one-click) headers. The link is the public unsubscribe page `/u/{token}`, for this recipient in this channel. Default false: none of these, as for a password reset.',
      },
      double_opt_in: boolean('Holds the email (status awaiting_confirmation) and sends the recipient a confirmation email, unless they confirmed before; the email goes out when they confirm.'),
      email_server_id: integer('One of the channel\'s email servers; default its first.'),
      template_id: integer('A broadcast template whose fields fill those not given.'),
    },
    required: ['to'],
  },
  TransactionalCreated: closed({ id: integer(), to: string(), subject: string(), status: ref('TransactionalStatus'), created_at: dateTime() }),
  Transactional: closed({
    id: integer(),
    to: string(),
    subject: string(),
    status: ref('TransactionalStatus'),
    message_id: nullableString(),
    sent_at: nullableDateTime(),
    created_at: dateTime(),
    error: nullableString(),
  }),
};
