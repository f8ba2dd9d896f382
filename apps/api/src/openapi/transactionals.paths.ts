import { transactionalListQuery } from '../http/transactionals/transactionals.schemas';
import { authenticated, type Json, ok, param } from './operation';
import { queryParameters } from './schema-helpers';
import { ref } from './schemas';

export const TRANSACTIONALS = 'Transactional email';

export const TRANSACTIONAL_PATHS: Record<string, Json> = {
  '/api/v1/transactionals.json': {
    get: authenticated({
      operationId: 'listTransactionals',
      summary: 'List transactional emails',
      description:
        "The channel's transactional log, newest first (`created_at`, then `id`), as `{data, total}` with `limit`/`offset` like the other lists. The filters apply together: `status`, `email` (part of the recipient, any case), `created_after` and `created_before` (inclusive). An unknown status, an unparsable instant or a bad `limit`/`offset`: 422.",
      tag: TRANSACTIONALS,
      permission: 'transactionals_read',
      parameters: queryParameters(transactionalListQuery),
      responses: { '200': ok('A page of transactionals.', ref('TransactionalList')) },
      errors: ['422'],
    }),
    post: authenticated({
      operationId: 'createTransactional',
      summary: 'Send one transactional email',
      description:
        'Queued ahead of broadcast traffic. Suppressed addresses are recorded as `suppressed` and never sent; subscription state is ignored. Header `Idempotency-Key` (at most 255 characters): the same key and body within 24 hours replays the stored answer and sends nothing; while the first is in progress: 409; another body: 422.',
      tag: TRANSACTIONALS,
      permission: 'transactionals_write',
      parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }],
      body: { schema: ref('TransactionalInput') },
      responses: {
        '201': (() => {
          const created = ok(
            'Accepted. A replay of an Idempotency-Key answers the original status and body with `Idempotency-Replayed: true`.',
            ref('TransactionalCreated'),
          );
          return {
            ...created,
            headers: {
              ...(created.headers as Json),
              'Idempotency-Replayed': {
                description: '`true` when this answer replays an earlier request with the same Idempotency-Key.',
                schema: { type: 'string', enum: ['true'] },
              },
            },
          };
        })(),
        '409': { description: 'The same Idempotency-Key is still in progress.', content: { 'application/json': { schema: ref('Error') } } },
      },
      errors: ['422'],
    }),
  },
  '/api/v1/transactionals/{id}/events.json': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'listTransactionalEvents',
      summary: "A transactional email's events",
      description:
        "The `email.*` events recorded for it (`email.sent`, `email.delivered`, `email.delivery_delayed`, `email.bounced`, `email.failed`), oldest first, each with the data its webhook carries; at most 200. Transactionals are not tracked, so there are no opens or clicks. Events are kept as long as the installation's retention keeps them; a suppressed or held transactional has none.",
      tag: TRANSACTIONALS,
      permission: 'transactionals_read',
      responses: { '200': ok('Its events.', ref('TransactionalEventList')) },
      errors: ['404'],
    }),
  },
  '/api/v1/transactionals/{id}.json': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getTransactional',
      summary: 'Get a transactional email',
      tag: TRANSACTIONALS,
      permission: 'transactionals_read',
      responses: { '200': ok('The transactional and its status.', ref('Transactional')) },
      errors: ['404'],
    }),
  },
};
