import { CONDITION_SETTINGS, ENROLMENT_STATUSES, HTTP_METHODS, MAX_STEP_DELAY_SECONDS, STEP_ACTIONS } from '@mailcast/domain';
import {
  arrayOf,
  boolean,
  closed,
  dateTime,
  integer,
  nestedOrFlat,
  nullableDateTime,
  nullableString,
  page,
  ref,
  string,
  warned,
  type Schema,
} from './schema-helpers';

const nullableInteger = (description?: string): Schema => ({ type: ['integer', 'null'], ...(description ? { description } : {}) });
const ids = (description: string): Schema => arrayOf(integer(), description);

const sequenceProperties: Record<string, Schema> = {
  id: integer(),
  label: string(),
  active: boolean('Switched off, every enrolment waits paused; switched on, they resume.'),
  track_opens: boolean(),
  track_clicks: boolean(),
  use_any_email_server: boolean(),
  email_server_ids: ids('The email servers its emails use when use_any_email_server is false.'),
  init_tag: nullableString('Adding this tag to a subscriber (any path) enrols them while the sequence is active; removing it removes them.'),
  init_segment_id: nullableInteger('Members of this segment are enrolled by a periodic sync.'),
  topic_id: nullableInteger(),
  excluded_segment_ids: ids('Email steps skip members of these segments.'),
  parent_sequence_id: nullableInteger(),
  subscribers_count: integer('Enrolments under way (active, paused or in a step).'),
  steps_count: integer('Steps made by the user (not the entry point or condition branches).'),
  created_at: dateTime(),
  updated_at: dateTime(),
};

const sequenceInput: Record<string, Schema> = {
  label: string('Default "Untitled sequence".'),
  name: string('Alias of label.'),
  active: boolean('Default false.'),
  track_opens: boolean('Default true.'),
  track_clicks: boolean('Default true.'),
  use_any_email_server: boolean('Default true.'),
  email_server_ids: ids('Servers of this channel; not empty when use_any_email_server is false.'),
  init_tag: nullableString(),
  init_segment_id: nullableInteger('A segment of this channel, not also excluded.'),
  topic_id: nullableInteger(),
  excluded_segment_ids: ids('Segments of this channel.'),
  parent_sequence_id: nullableInteger('Another sequence of this channel.'),
};

const stepFields: Record<string, Schema> = {
  subject: nullableString('send_email: required unless template_id; Liquid.'),
  preheader: nullableString('send_email.'),
  body: nullableString('send_email: the text body; make_http_request: the request body (Liquid; default: the subscriber as JSON).'),
  html_body: nullableString('send_email.'),
  template_id: nullableInteger('send_email: a template of this channel; it fills the fields left empty.'),
  delay: integer(`delay: whole seconds, 1 to ${MAX_STEP_DELAY_SECONDS}; condition: seconds before evaluating (default 0).`),
  time: string('delay_until_time: HH:MM.'),
  timezone: string('delay_until_time: an IANA time zone (default UTC).'),
  condition_setting: { type: 'string', enum: [...CONDITION_SETTINGS], description: 'condition.' },
  target_sequence_id: integer('move_to_sequence: another sequence of this channel.'),
  tags: arrayOf(string(), 'add_tag_to_subscriber, remove_tag_from_subscriber.'),
  http_method: { type: 'string', enum: [...HTTP_METHODS], description: 'make_http_request (default POST).' },
  url: string('make_http_request: under the webhook URL rules.'),
  headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'make_http_request.' },
};

const stepBase: Record<string, Schema> = {
  id: integer(),
  sequence_id: integer(),
  action: { type: 'string', enum: [...STEP_ACTIONS] },
  label: nullableString(),
  parent_id: nullableInteger('Null for the entry point only.'),
  position: integer('Depth-first index in the tree, true branches first.'),
  created_at: dateTime(),
  updated_at: dateTime(),
};

const statistics = closed(
  {
    sent: integer(),
    delivered: integer(),
    opens: integer(),
    clicks: integer(),
    bounces: integer(),
    unsubscribes: integer(),
  },
  'send_email steps only: unique subscribers per kind.',
);

/** Sequences, steps and enrolments. Spread into SCHEMAS by schemas.ts. */
export const SEQUENCE_SCHEMAS: Record<string, Schema> = {
  Sequence: warned(closed(sequenceProperties)),
  SequenceWithSteps: {
    ...closed(sequenceProperties),
    properties: { ...sequenceProperties, steps: arrayOf(ref('SequenceStep'), 'With include_steps=true: every step, depth-first.') },
  },
  SequenceList: page('Sequence'),
  SequenceInput: { type: 'object', properties: sequenceInput },
  SequenceBody: nestedOrFlat('sequence', 'SequenceInput'),
  SequenceStep: {
    type: 'object',
    description: "A step: its place in the tree and its action's fields (only those of its action appear).",
    properties: {
      ...stepBase,
      ...stepFields,
      branch: boolean('condition_branch only: which side.'),
      statistics,
      warnings: ref('Warnings'),
    },
    required: Object.keys(stepBase),
    additionalProperties: false,
  },
  SequenceStepList: page('SequenceStep'),
  SequenceStepInput: {
    type: 'object',
    properties: {
      action: { type: 'string', enum: STEP_ACTIONS.filter((a) => a !== 'entry_point' && a !== 'condition_branch'), default: 'send_email' },
      label: nullableString(),
      parent_id: integer('Create only: default the end of the main line (first children, true branches).'),
      ...stepFields,
      taggify_list: string('"a,b": read as tags when tags is absent.'),
    },
  },
  SequenceStepBody: nestedOrFlat('step', 'SequenceStepInput'),
  SequenceStepMoveBody: nestedOrFlat('step', 'SequenceStepMoveInput'),
  SequenceStepMoveInput: {
    type: 'object',
    properties: { under_id: integer('The new parent: not a condition, not in the moved subtree.') },
    required: ['under_id'],
  },
  SubscriberSequence: warned(
    closed({
      id: integer(),
      status: { type: 'string', enum: [...ENROLMENT_STATUSES] },
      started_at: dateTime(),
      completed_at: nullableDateTime(),
      next_trigger_at: nullableDateTime('When the current step falls due.'),
      current_step_id: nullableInteger('Null once the path has ended.'),
      subscriber: closed({ id: integer(), email: string() }),
    }),
  ),
  SequenceSubscriberInput: {
    type: 'object',
    properties: {
      email: string(),
      first_name: nullableString(),
      last_name: nullableString(),
      tags: arrayOf(string()),
      custom_data: { type: 'object', additionalProperties: true },
    },
    required: ['email'],
  },
  SequenceSubscriberBody: nestedOrFlat('subscriber', 'SequenceSubscriberInput', { restart: boolean('Start an ended enrolment again (default false).') }),
  SequenceEmailBody: nestedOrFlat('subscriber', 'SequenceEmailInput'),
  SequenceEmailInput: { type: 'object', properties: { email: string() }, required: ['email'] },
  SubscriberSequenceRemoved: closed({ message: string(), subscriber_sequence: ref('SubscriberSequence') }),
  SubscriberSequencePage: closed({
    subscriber_sequences: arrayOf(ref('SubscriberSequence')),
    pagination: closed({
      prev: nullableInteger(),
      next: nullableInteger(),
      count: integer('Enrolments in the whole list.'),
      pages: integer(),
      page: integer(),
    }),
  }),
  SequenceEventData: {
    ...closed({
      sequence_id: integer(),
      subscriber_sequence_id: integer(),
      status: { type: 'string', enum: [...ENROLMENT_STATUSES] },
      step_id: nullableInteger('The step the enrolment is at.'),
      subscriber: closed({ id: integer(), email: string() }),
    }),
    properties: {
      sequence_id: integer(),
      subscriber_sequence_id: integer(),
      status: { type: 'string', enum: [...ENROLMENT_STATUSES] },
      step_id: nullableInteger('The step the enrolment is at.'),
      subscriber: closed({ id: integer(), email: string() }),
      target_sequence_id: integer('sequence.subscriber_moved only.'),
      error: string('sequence.subscriber_error only.'),
    },
  },
};
