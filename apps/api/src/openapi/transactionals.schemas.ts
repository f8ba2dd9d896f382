import { TRANSACTIONAL_STATUSES } from '@mailcast/domain';
import { boolean, closed, dateTime, freeObject, integer, nullableDateTime, nullableString, ref, string, type Schema } from './schema-helpers';

/** Transactional emails. Spread into SCHEMAS by schemas.ts. */
export const TRANSACTIONAL_SCHEMAS: Record<string, Schema> = {
  TransactionalStatus: { type: 'string', enum: [...TRANSACTIONAL_STATUSES] },
  TransactionalInput: {
    type: 'object',
    description: 'Flat. `subject` and `body` are required unless `template_id` names a template that has them. Liquid sees `subscriber` and `data`.',
    properties: {
      to: string('The recipient; the subscriber is created on first send.'),
      subject: string(),
      body: string('Plain text; Liquid.'),
      html_body: nullableString('Liquid; values are HTML-escaped.'),
      preheader: nullableString(),
      reply_to: nullableString(),
      data: freeObject('In Liquid scope as `data`.'),
      subscriber: { type: 'object', properties: { first_name: nullableString(), last_name: nullableString(), custom_data: freeObject('Stored on a new subscriber.') } },
      include_unsubscribe_link: { type: 'boolean', const: false, description: 'Only false for now.' },
      double_opt_in: boolean('Not supported yet: true is a 422.'),
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
