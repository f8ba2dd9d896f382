import { authenticated, type Json, ok, param, query } from './operation';
import { ref } from './schemas';

export const SEQUENCES = 'Sequences';

const stepId = { name: 'step_id', in: 'path', required: true, description: 'A step of this sequence.', schema: { type: 'integer', minimum: 1 } };

const SEQUENCE_422 =
  '422 naming the field, nothing written: an id (email server, segment, parent sequence, topic) not of this channel; empty `email_server_ids` with `use_any_email_server` false; a segment both `init_segment_id` and excluded; turning off open or click tracking that a condition step reads.';
const STEP_422 =
  '422 naming the field, nothing written: an unknown or non-creatable action, a field its action refuses (a delay outside 1..31536000 s, a time that is not HH:MM, an unknown time zone or condition setting, no tags), Liquid that does not parse, a template or target sequence not of this channel, a URL the webhook rules refuse, a `parent_id` that is not a step of this sequence or is a condition (choose one of its branches).';

export const SEQUENCE_PATHS: Record<string, Json> = {
  '/api/v1/sequences': {
    get: authenticated({
      operationId: 'listSequences',
      summary: 'List sequences',
      description: 'Most recently created first, each with its counts.',
      tag: SEQUENCES,
      permission: 'sequences_read',
      parameters: [param('limit'), param('offset')],
      responses: { '200': ok('A page of sequences.', ref('SequenceList')) },
      errors: ['422'],
    }),
    post: authenticated({
      operationId: 'createSequence',
      summary: 'Create a sequence',
      description: `It starts with its entry point step. ${SEQUENCE_422}`,
      tag: SEQUENCES,
      permission: 'sequences_write',
      body: { schema: ref('SequenceBody') },
      responses: { '201': ok('Created.', ref('Sequence')) },
      errors: ['422'],
    }),
  },
  '/api/v1/sequences/{id}': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getSequence',
      summary: 'Get a sequence',
      tag: SEQUENCES,
      permission: 'sequences_read',
      parameters: [query('include_steps', { type: 'boolean' }, 'true adds `steps`, depth-first.')],
      responses: { '200': ok('The sequence.', ref('SequenceWithSteps')) },
      errors: ['404'],
    }),
    patch: authenticated({
      operationId: 'updateSequence',
      summary: 'Update a sequence',
      description: `Only the fields given change. \`active: false\` pauses every active enrolment (\`sequence.subscriber_paused\` each), \`true\` resumes every paused one (\`sequence.subscriber_resumed\`). ${SEQUENCE_422}`,
      tag: SEQUENCES,
      permission: 'sequences_write',
      body: { schema: ref('SequenceBody') },
      responses: { '200': ok('The sequence.', ref('Sequence')) },
      errors: ['404', '422'],
    }),
    delete: authenticated({
      operationId: 'deleteSequence',
      summary: 'Delete a sequence',
      description: 'Steps and enrolments go with it, without events. A sequence that a move_to_sequence step of another sequence targets: 422.',
      tag: SEQUENCES,
      permission: 'sequences_write',
      responses: { '200': ok('Deleted.', ref('Message')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/sequences/{id}/add_subscriber': {
    parameters: [param('id')],
    post: authenticated({
      operationId: 'addSequenceSubscriber',
      summary: 'Enrol a subscriber',
      description:
        'An unknown address creates the subscriber. 201: enrolled at the entry point, due now (paused while the sequence is switched off), `sequence.subscriber_added` emitted. 200 with the `already_enrolled` warning: under way already. 422 "Subscriber has already completed this sequence" for an ended enrolment unless `restart: true`; 422 "Subscriber is not active". Also needs `subscribers_write`.',
      tag: SEQUENCES,
      permission: 'sequences_write',
      body: { schema: ref('SequenceSubscriberBody') },
      responses: { '201': ok('Enrolled.', ref('SubscriberSequence')), '200': ok('Already enrolled.', ref('SubscriberSequence')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/sequences/{id}/remove_subscriber': {
    parameters: [param('id')],
    delete: authenticated({
      operationId: 'removeSequenceSubscriber',
      summary: 'Remove a subscriber from a sequence',
      description: 'The enrolment ends `removed`, with `sequence.subscriber_removed`. Not under way in it: 404. Also needs `subscribers_write`.',
      tag: SEQUENCES,
      permission: 'sequences_write',
      body: { schema: ref('SequenceEmailBody') },
      responses: { '200': ok('Removed.', ref('SubscriberSequenceRemoved')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/sequences/{id}/list_subscribers': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'listSequenceSubscribers',
      summary: 'List enrolments',
      description: 'Newest first, 10 a page. Also needs `subscribers_read`.',
      tag: SEQUENCES,
      permission: 'sequences_read',
      parameters: [
        query('page', { type: 'integer', minimum: 1, default: 1 }, 'Page, from 1.'),
        query('status', { type: 'string', enum: ['active', 'paused', 'busy', 'completed', 'removed', 'error'] }, 'Only enrolments in this status.'),
      ],
      responses: { '200': ok('A page of enrolments.', ref('SubscriberSequencePage')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/sequences/{id}/steps': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'listSequenceSteps',
      summary: 'List steps',
      description: 'Depth-first; send_email steps with their statistics.',
      tag: SEQUENCES,
      permission: 'sequences_read',
      responses: { '200': ok('Every step.', ref('SequenceStepList')) },
      errors: ['404'],
    }),
    post: authenticated({
      operationId: 'createSequenceStep',
      summary: 'Create a step',
      description: `Under \`parent_id\` (default: the end of the main line, following first children and true branches); the parent's former child moves under the new step (a condition's true branch). A condition gets its two branches. ${STEP_422}`,
      tag: SEQUENCES,
      permission: 'sequences_write',
      body: { schema: ref('SequenceStepBody') },
      responses: { '201': ok('Created.', ref('SequenceStep')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/sequences/{id}/steps/{step_id}': {
    parameters: [param('id'), stepId],
    get: authenticated({
      operationId: 'getSequenceStep',
      summary: 'Get a step',
      description: 'A send_email step answers its `statistics`.',
      tag: SEQUENCES,
      permission: 'sequences_read',
      responses: { '200': ok('The step.', ref('SequenceStep')) },
      errors: ['404'],
    }),
    patch: authenticated({
      operationId: 'updateSequenceStep',
      summary: 'Update a step',
      description: `The label and the action's fields; those not given stay. \`action\` and \`parent_id\` cannot change (422); the entry point and branches cannot be edited. ${STEP_422}`,
      tag: SEQUENCES,
      permission: 'sequences_write',
      body: { schema: ref('SequenceStepBody') },
      responses: { '200': ok('The step.', ref('SequenceStep')) },
      errors: ['404', '422'],
    }),
    delete: authenticated({
      operationId: 'deleteSequenceStep',
      summary: 'Delete a step',
      description:
        'Its child re-attaches to its parent; a condition keeps its true branch and drops the false one. Enrolments waiting on a removed step continue at the step now in its place, at once. The entry point and branches: 422.',
      tag: SEQUENCES,
      permission: 'sequences_write',
      responses: { '200': ok('Deleted.', ref('Message')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/sequences/{id}/steps/{step_id}/move': {
    parameters: [param('id'), stepId],
    post: authenticated({
      operationId: 'moveSequenceStep',
      summary: 'Move a step',
      description:
        "The step becomes a child of `under_id`: a plain step moves alone (its child re-attaches to its old parent), a condition with both branches; the target's former child goes under the moved step (a condition: the end of its true branch). 422: the entry point or a branch, under itself or its own subtree, a step of another sequence, a condition, no change.",
      tag: SEQUENCES,
      permission: 'sequences_write',
      body: { schema: ref('SequenceStepMoveBody') },
      responses: { '200': ok('The moved step.', ref('SequenceStep')) },
      errors: ['404', '422'],
    }),
  },
};
