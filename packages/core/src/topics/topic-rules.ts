import { CUSTOM_DATA_KEY_PATTERN, MAX_TOPIC_NAME, type TopicStorage } from '@mailcast/domain';
import { NotFoundError, ValidationError } from '../errors';
import type { Repositories, Topic, TopicSettings } from '../ports';

export const TOPIC_NOT_FOUND = 'Topic not found';
export const MAX_TOPIC_DESCRIPTION = 1_000;
export const MAX_TOPIC_TAG = 255;

/** What a create or update may set; absent leaves as it is (create: the defaults). */
export interface TopicInput {
  name?: string;
  description?: string | null;
  storage?: TopicStorage;
  customDataKey?: string | null;
  tagName?: string | null;
  unsetReceives?: boolean;
  visibleOnPreferencePage?: boolean;
  position?: number;
}

export async function topicOrNotFound(r: Repositories, channelId: number, id: number, forUpdate = false): Promise<Topic> {
  const topic = await r.topics.findById(channelId, id, { forUpdate });
  if (topic === null) throw new NotFoundError(TOPIC_NOT_FOUND);
  return topic;
}

const given = (v: string | null | undefined): v is string => typeof v === 'string' && v.trim() !== '';

/**
 * docs/topics.md, "The API": the storage follows from which of custom_data_key and tag_name is
 * given, and cannot change afterwards (the values would mean something else); a tag topic's
 * unset_receives stays false. Each refusal is one `{error}` message naming its field.
 */
export function checkedTopic(current: TopicSettings | null, input: TopicInput): Omit<TopicSettings, 'position'> & { position: number | null } {
  const fail = (message: string): never => {
    throw new ValidationError(message);
  };
  let storage: TopicStorage;
  if (current === null) {
    const key = given(input.customDataKey);
    const tag = given(input.tagName);
    if (key && tag) fail('custom_data_key and tag_name cannot both be given: a topic is stored in one of them');
    if (!key && !tag)
      fail(
        input.storage === 'tag'
          ? "tag_name can't be blank"
          : input.storage === 'custom_data'
            ? "custom_data_key can't be blank"
            : 'custom_data_key or tag_name is required',
      );
    storage = key ? 'custom_data' : 'tag';
    if (input.storage !== undefined && input.storage !== storage) fail(`storage must be ${storage} when ${key ? 'custom_data_key' : 'tag_name'} is given`);
  } else {
    storage = current.storage;
    if (input.storage !== undefined && input.storage !== storage) fail('storage cannot be changed; create a new topic instead');
    if (storage === 'custom_data' && given(input.tagName)) fail('tag_name cannot be set on a custom_data topic');
    if (storage === 'tag' && given(input.customDataKey)) fail('custom_data_key cannot be set on a tag topic');
  }

  const name = (input.name ?? current?.name ?? '').trim();
  if (name === '') fail("name can't be blank");
  if (name.length > MAX_TOPIC_NAME) fail(`name is too long (maximum is ${MAX_TOPIC_NAME} characters)`);
  const description =
    input.description === undefined ? (current?.description ?? null) : input.description === null || input.description.trim() === '' ? null : input.description;
  if (description !== null && description.length > MAX_TOPIC_DESCRIPTION) fail(`description is too long (maximum is ${MAX_TOPIC_DESCRIPTION} characters)`);

  let customDataKey: string | null = null;
  let tagName: string | null = null;
  if (storage === 'custom_data') {
    customDataKey = input.customDataKey === undefined ? current!.customDataKey : (input.customDataKey ?? '').trim();
    if (!given(customDataKey)) fail("custom_data_key can't be blank");
    if (!CUSTOM_DATA_KEY_PATTERN.test(customDataKey!) || customDataKey!.length > 255) {
      fail('custom_data_key must be a top-level key: a letter or underscore, then letters, digits or underscores');
    }
  } else {
    tagName = input.tagName === undefined ? current!.tagName : (input.tagName ?? '').trim();
    if (!given(tagName)) fail("tag_name can't be blank");
    if (tagName!.length > MAX_TOPIC_TAG) fail(`tag_name is too long (maximum is ${MAX_TOPIC_TAG} characters)`);
  }
  const unsetReceives = input.unsetReceives ?? current?.unsetReceives ?? false;
  if (storage === 'tag' && unsetReceives) fail('unset_receives must be false for a tag topic: an untagged subscriber has made no choice');
  return {
    name,
    description,
    storage,
    customDataKey,
    tagName,
    unsetReceives,
    visibleOnPreferencePage: input.visibleOnPreferencePage ?? current?.visibleOnPreferencePage ?? true,
    position: input.position ?? current?.position ?? null,
  };
}
