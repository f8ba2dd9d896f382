import { authenticated, html, type Json, ok, param, PUBLIC, publicOperation, SUBSCRIBERS, tokenParam } from './operation';
import { ref } from './schemas';

const TOPIC_422 =
  '422 `{"error": "<field> ..."}`, nothing written: no name, a name over 100 characters, neither or both of `custom_data_key` and `tag_name`, a key that is not a top-level key (`^[A-Za-z_]\\w*$`), a `storage` that disagrees (or, on update, changes), `unset_receives` true on a tag topic, a name (case-insensitive), key or tag another topic of the channel has.';

/** docs/topics.md: topics use the subscribers permissions; paths as the segments'. */
export const TOPIC_PATHS: Record<string, Json> = {
  '/api/v1/topics.json': {
    get: authenticated({
      operationId: 'listTopics',
      summary: 'List topics',
      description: 'By position, then id.',
      tag: SUBSCRIBERS,
      permission: 'subscribers_read',
      parameters: [param('limit'), param('offset')],
      responses: { '200': ok('A page of topics.', ref('TopicList')) },
      errors: ['422'],
    }),
  },
  '/api/v1/topics': {
    post: authenticated({
      operationId: 'createTopic',
      summary: 'Create a topic',
      description: `The storage follows from which of \`custom_data_key\` and \`tag_name\` is given. Placed after the channel's last topic unless \`position\` says. ${TOPIC_422}`,
      tag: SUBSCRIBERS,
      permission: 'subscribers_write',
      body: { schema: ref('TopicBody') },
      responses: { '201': ok('Created.', ref('Topic')) },
      errors: ['422'],
    }),
  },
  '/api/v1/topics/{id}.json': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getTopic',
      summary: 'Get a topic, with its counts',
      tag: SUBSCRIBERS,
      permission: 'subscribers_read',
      responses: { '200': ok('The topic.', ref('TopicWithCounts')) },
      errors: ['404'],
    }),
  },
  '/api/v1/topics/{id}': {
    parameters: [param('id')],
    patch: authenticated({
      operationId: 'updateTopic',
      summary: 'Update a topic',
      description: `Only the fields given change; no subscriber's data is touched. ${TOPIC_422}`,
      tag: SUBSCRIBERS,
      permission: 'subscribers_write',
      body: { schema: ref('TopicBody') },
      responses: { '200': ok('The topic.', ref('Topic')) },
      errors: ['404', '422'],
    }),
    delete: authenticated({
      operationId: 'deleteTopic',
      summary: 'Delete a topic',
      description:
        "422 while a broadcast that may still send (not sent, partial_failure or aborted), a sequence or an opt-in form's topic block uses it. Finished broadcasts forget it. Subscribers' data is left as it is.",
      tag: SUBSCRIBERS,
      permission: 'subscribers_write',
      responses: { '200': ok('Deleted.', ref('Message')) },
      errors: ['404', '422'],
    }),
  },
  '/preferences/{token}': {
    parameters: [tokenParam],
    get: publicOperation({
      operationId: 'preferencesPage',
      summary: 'Preference page',
      description:
        "`{{ preferences_url }}` of an email: the token of its unsubscribe link. Lists the channel's topics visible on the preference page with the subscriber's choices, and offers to unsubscribe from all. Changes nothing.",
      tag: PUBLIC,
      responses: { '200': html('The preference page.'), '404': html('A token that does not verify.') },
    }),
    post: {
      ...publicOperation({
        operationId: 'savePreferences',
        summary: 'Save preferences, or unsubscribe from all',
        description:
          'Each topic in `shown` is received when also in `receive` (custom_data topics store true or false, tag topics add or remove their tag; only changed answers are written); `subscriber.updated` and `subscriber.preferences_updated` are emitted. `unsubscribe_all` unsubscribes as the unsubscribe link does.',
        tag: PUBLIC,
        responses: { '200': html('Saved, or unsubscribed.'), '404': html('A token that does not verify.') },
      }),
      requestBody: {
        required: false,
        content: {
          'application/x-www-form-urlencoded': {
            schema: {
              type: 'object',
              properties: {
                shown: { type: 'array', items: { type: 'integer' }, description: 'The topic ids the page showed.' },
                receive: { type: 'array', items: { type: 'integer' }, description: 'The topic ids ticked.' },
                unsubscribe_all: { type: 'string' },
              },
            },
          },
        },
      },
    },
  },
};
