import { TOPIC_STORAGES } from '@mailcast/domain';
import { topicFields } from '../http/topics/topics.schemas';
import { boolean, closed, dateTime, integer, nestedOrFlat, nullableString, page, ref, requestSchema, string, warned, type Schema } from './schema-helpers';

/** docs/topics.md, "The API". */
const topicProperties: Record<string, Schema> = {
  id: integer(),
  name: string('At most 100 characters, unique in the channel (case-insensitive).'),
  description: nullableString(),
  storage: { type: 'string', enum: [...TOPIC_STORAGES], description: 'Where the value lives: a top-level custom_data key, or a tag.' },
  custom_data_key: nullableString('For custom_data topics: `true`, `1`, `"true"` or `"1"` is yes; missing or null is unset; anything else no.'),
  tag_name: nullableString('For tag topics: tagged is yes, untagged is unset.'),
  unset_receives: boolean('Whether a subscriber without a value receives the topic (always false for tag topics).'),
  visible_on_preference_page: boolean(),
  position: integer('Order on the preference page and in lists.'),
  created_at: dateTime(),
  updated_at: dateTime(),
};

export const TOPIC_SCHEMAS: Record<string, Schema> = {
  Topic: warned(closed(topicProperties)),
  TopicWithCounts: closed({
    ...topicProperties,
    counts: closed(
      {
        yes: integer(),
        no: integer(),
        unset: integer(),
        receiving: integer('receives_topic true: yes, and unset when unset_receives.'),
      },
      "Over the channel's subscribers that are not redacted; yes + no + unset is all of them.",
    ),
  }),
  TopicList: page('Topic'),
  TopicInput: requestSchema(topicFields),
  TopicBody: nestedOrFlat('topic', 'TopicInput'),
  SubscriberTopics: {
    type: 'object',
    description: "The value of each of the channel's topics by topic id: true (yes), false (no) or null (unset).",
    additionalProperties: { type: ['boolean', 'null'] },
  },
  SubscriberPreferencesEventData: closed(
    {
      subscriber: ref('SubscriberEventData'),
      changes: {
        type: 'array',
        items: closed({ topic_id: integer(), from: { type: ['boolean', 'null'] }, to: { type: ['boolean', 'null'] } }),
        description: 'Each topic whose value changed, by position.',
      },
    },
    'subscriber.preferences_updated: a stored topic value changed (API, tags, preference page, import, sequence step, form).',
  ),
};
