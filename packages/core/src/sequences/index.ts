// The sequence use cases and rules core exports (re-exported by packages/core/src/index.ts).
export { DEFAULT_SEQUENCE_LABEL, SEQUENCE_DEFAULTS, SEQUENCE_NOT_FOUND, STEP_NOT_FOUND } from './sequence-rules';
export { CreateSequence } from './create-sequence';
export { GetSequence, type SequenceView } from './get-sequence';
export { ListSequences } from './list-sequences';
export { UpdateSequence } from './update-sequence';
export { DeleteSequence } from './delete-sequence';
export { CreateStep } from './create-step';
export { GetStep, ListSteps } from './list-steps';
export { UpdateStep } from './update-step';
export { DeleteStep } from './delete-step';
export { sequenceEmailEventData } from './sequence-tracking';
export { MoveStep } from './move-step';
export type { StepInput } from './step-rules';
export { AddSequenceSubscriber, SUBSCRIBER_NOT_ACTIVE, type AddSequenceSubscriberInput, type AddSequenceSubscriberResult } from './add-sequence-subscriber';
export { NOT_IN_SEQUENCE, RemoveSequenceSubscriber } from './remove-sequence-subscriber';
export { ENROLMENTS_PAGE_SIZE, ListSequenceSubscribers } from './list-sequence-subscribers';
export { RunSequenceSteps } from './run-sequence-steps';
export { SyncSegmentEnrolments } from './sync-segment-enrolments';
