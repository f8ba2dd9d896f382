/**
 * Topics (docs/topics.md): a topic's value lives in the subscriber's own data, a top-level
 * custom_data key or a tag. `topicValue` is the SQL function `topic_value` of the migration
 * `20261201000001_topics_and_forms.js` written in TypeScript, case for case, so an API answer can
 * show a page of subscribers' values without asking PostgreSQL per row; a test holds the two
 * against each other.
 */

export const TOPIC_STORAGES = ['custom_data', 'tag'] as const;
export type TopicStorage = (typeof TOPIC_STORAGES)[number];

/** A top-level custom_data key (docs/topics.md, "The API"). */
export const CUSTOM_DATA_KEY_PATTERN = /^[A-Za-z_]\w*$/;
export const MAX_TOPIC_NAME = 100;

/** What decides a topic's value. */
export interface TopicSource {
  storage: TopicStorage;
  customDataKey: string | null;
  tagName: string | null;
}

/** The values a subscriber's data holds. */
export interface TopicHolder {
  tags: readonly string[] | null;
  customData: unknown;
}

const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/**
 * true = yes, false = no, null = unset. custom_data: `true`, `1`, `"true"`, `"1"` is yes, a missing
 * key or `null` unset, anything else (`0`, `"yes"`, an object) no. Tags: tagged is yes, else unset.
 * Only the object's own keys count (`constructor` is not a key of `{}`), as in jsonb.
 */
export function topicValue(topic: TopicSource, holder: TopicHolder): boolean | null {
  if (topic.storage === 'tag') return holder.tags !== null && topic.tagName !== null && holder.tags.includes(topic.tagName) ? true : null;
  const data = holder.customData;
  const key = topic.customDataKey;
  if (key === null || typeof data !== 'object' || data === null || Array.isArray(data) || !hasOwn(data, key)) return null;
  const value = (data as Record<string, unknown>)[key];
  if (value === null || value === undefined) return null;
  return value === true || value === 1 || value === 'true' || value === '1';
}

/** `receives_topic`: the value, or `unsetReceives` when unset. */
export function receivesTopic(topic: TopicSource & { unsetReceives: boolean }, holder: TopicHolder): boolean {
  return topicValue(topic, holder) ?? topic.unsetReceives;
}

/**
 * The subscriber's data after a choice of `receives` (the preference page): a custom_data topic
 * stores `true` or `false` under its key; a tag topic adds or removes its tag. Other data is kept.
 */
export function withTopicChoice<H extends { tags: string[]; customData: Record<string, unknown> }>(topic: TopicSource, holder: H, receives: boolean): H {
  if (topic.storage === 'tag') {
    const tag = topic.tagName!;
    const tags = receives ? (holder.tags.includes(tag) ? holder.tags : [...holder.tags, tag]) : holder.tags.filter((t) => t !== tag);
    return { ...holder, tags };
  }
  return { ...holder, customData: { ...holder.customData, [topic.customDataKey!]: receives } };
}

/** One changed value in `subscriber.preferences_updated` (docs/topics.md, "The event"). */
export interface TopicChange {
  topic_id: number;
  from: boolean | null;
  to: boolean | null;
}
