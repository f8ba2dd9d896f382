import { ValidationError, type TopicInput } from '@mailcast/core';
import { MAX_TOPIC_NAME, TOPIC_STORAGES } from '@mailcast/domain';
import Joi from 'joi';
import { keysOf, type BodyShape } from '../warnings';

/**
 * Request shapes of the topic routes, flat or under `topic` (docs/api-decisions.md, "Two body
 * forms"). Types are checked here; what the fields mean together is the use cases' (CreateTopic).
 * Every refusal is `{"error": "<field> ..."}` (docs/topics.md, "The API").
 */
export const topicFields = Joi.object({
  name: Joi.string().max(MAX_TOPIC_NAME).description(`Required on create; at most ${MAX_TOPIC_NAME} characters, unique in the channel (case-insensitive).`),
  description: Joi.string().max(1_000).allow('', null),
  storage: Joi.string()
    .valid(...TOPIC_STORAGES)
    .description('Inferred from which of custom_data_key and tag_name is given; cannot change.'),
  custom_data_key: Joi.string().max(255).allow(null).description('A top-level custom_data key, `^[A-Za-z_]\\w*$`, unique in the channel.'),
  tag_name: Joi.string().max(255).allow(null).description('A tag, unique in the channel.'),
  unset_receives: Joi.boolean().description('Whether a subscriber without a value receives the topic. Default false; must stay false for tag topics.'),
  visible_on_preference_page: Joi.boolean().description('Default true.'),
  position: Joi.number().integer().min(0).max(1_000_000).description("Order on the preference page and in lists. Default: after the channel's last topic."),
});

export const TOPIC_BODY: BodyShape = { key: 'topic', fields: keysOf(topicFields) };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function topicBody(body: unknown): TopicInput {
  const top = isObject(body) ? body : {};
  const fields = isObject(top.topic) ? top.topic : top;
  const { error, value } = topicFields.unknown(true).validate(fields, { abortEarly: true, convert: false, errors: { wrap: { label: false } } });
  if (error) throw new ValidationError(error.details[0]!.message);
  const v = value as Record<string, unknown>;
  const input: TopicInput = {};
  if (v.name !== undefined) input.name = v.name as string;
  if (v.description !== undefined) input.description = v.description as string | null;
  if (v.storage !== undefined) input.storage = v.storage as TopicInput['storage'];
  if (v.custom_data_key !== undefined) input.customDataKey = v.custom_data_key as string | null;
  if (v.tag_name !== undefined) input.tagName = v.tag_name as string | null;
  if (v.unset_receives !== undefined) input.unsetReceives = v.unset_receives as boolean;
  if (v.visible_on_preference_page !== undefined) input.visibleOnPreferencePage = v.visible_on_preference_page as boolean;
  if (v.position !== undefined) input.position = v.position as number;
  return input;
}
