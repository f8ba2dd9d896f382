import { TRANSACTIONAL_STATUSES } from '@mailcast/domain';
import { transactionalSchema } from '../http/transactionals/transactionals.schemas';
import {
  arrayOf,
  closed,
  dateTime,
  freeObject,
  integer,
  nullableDateTime,
  nullableString,
  page,
  ref,
  requestSchema,
  string,
  warned,
  type Schema,
} from './schema-helpers';

/** Transactional emails. Spread into SCHEMAS by schemas.ts. */
export const TRANSACTIONAL_SCHEMAS: Record<string, Schema> = {
  TransactionalStatus: { type: 'string', enum: [...TRANSACTIONAL_STATUSES] },
  TransactionalInput: requestSchema(transactionalSchema),
  TransactionalCreated: warned(closed({ id: integer(), to: string(), subject: string(), status: ref('TransactionalStatus'), created_at: dateTime() })),
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
  TransactionalList: page('Transactional'),
  TransactionalEvent: closed({
    id: integer(),
    type: ref('EventType'),
    created_at: dateTime('When it was recorded.'),
    data: freeObject("The event's data, as its webhook carries it (`transactional_id` in place of `broadcast_id`)."),
  }),
  TransactionalEventList: closed({ data: arrayOf(ref('TransactionalEvent')) }),
};
