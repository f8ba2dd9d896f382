import { ENROLMENT_STATUSES, STEP_ACTIONS } from '@mailcast/domain';
import { moveFields, sequenceFields, stepFields, subscriberFields } from '../http/sequences/sequences.schemas';
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
  requestSchema,
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
  topic_id: nullableInteger('Email steps go only to subscribers who receive this topic of the channel; the others get no email for the step and move on.'),
  excluded_segment_ids: ids('Email steps skip members of these segments.'),
  parent_sequence_id: nullableInteger(),
  subscribers_count: integer('Enrolments under way (active, paused or in a step).'),
  steps_count: integer('Steps made by the user (not the entry point or condition branches).'),
  created_at: dateTime(),
  updated_at: dateTime(),
};

const stepInput = requestSchema(stepFields);
/** A step's own fields, as a step answers them: those of the request but what places it. */
const stepActionFields = Object.fromEntries(
  Object.entries(stepInput.properties as Record<string, Schema>).filter(([name]) => !['action', 'label', 'parent_id', 'taggify_list', 'paused'].includes(name)),
);

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
  SequenceInput: requestSchema(sequenceFields),
  SequenceBody: nestedOrFlat('sequence', 'SequenceInput'),
  SequenceStep: {
    type: 'object',
    description: "A step: its place in the tree and its action's fields (only those of its action appear).",
    properties: {
      ...stepBase,
      ...stepActionFields,
      branch: boolean('condition_branch only: which side.'),
      statistics,
      paused: boolean('send_email steps only: true while paused; enrolments reaching the step wait, parked, until it is resumed.'),
      pause_reason: {
        type: ['string', 'null'],
        enum: ['hard_bounce_rate', 'complaint_rate', null],
        description: "send_email steps only: why the reputation guard paused it; null for a person's pause or when not paused.",
      },
      warnings: ref('Warnings'),
    },
    required: Object.keys(stepBase),
    additionalProperties: false,
  },
  SequenceStepList: page('SequenceStep'),
  SequenceStepInput: stepInput,
  SequenceStepBody: nestedOrFlat('step', 'SequenceStepInput'),
  SequenceStepMoveBody: nestedOrFlat('step', 'SequenceStepMoveInput'),
  SequenceStepMoveInput: requestSchema(moveFields),
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
  SequenceSubscriberInput: requestSchema(subscriberFields),
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
