import { broadcastDueHandler } from './broadcast-due.handler';
import { broadcastsSendHandler } from './broadcasts-send.handler';
import { confirmationEmailHandler } from './confirmation-email.handler';
import { transactionalSendHandler } from './transactional-send.handler';
import { subjectTestDecisionHandler } from './subject-test-decision.handler';
import type { JobHandler } from './job-handler';

export type { JobHandler } from './job-handler';

/** Every queue this dispatcher works. Capabilities add their handlers here. */
// A handler of one queue is a handler of "a" queue; the parameter's variance needs the cast.
export const HANDLERS: readonly JobHandler[] = [
  broadcastDueHandler as unknown as JobHandler,
  broadcastsSendHandler as unknown as JobHandler,
  confirmationEmailHandler as unknown as JobHandler,
  transactionalSendHandler as unknown as JobHandler,
  subjectTestDecisionHandler as unknown as JobHandler,
];
