import {
  AddSequenceSubscriber,
  CreateSequence,
  CreateStep,
  DeleteSequence,
  DeleteStep,
  ENROLMENTS_PAGE_SIZE,
  GetSequence,
  GetStep,
  ListSequences,
  ListSequenceSubscribers,
  ListSteps,
  MoveStep,
  RemoveSequenceSubscriber,
  SEQUENCE_NOT_FOUND,
  STEP_NOT_FOUND,
  UpdateSequence,
  UpdateStep,
} from '@mailcast/core';
import { Router, type Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { principal } from '../auth';
import { idParam, pageParams } from '../params';
import { presentEnrolment, presentSequence, presentStep } from './sequence.presenter';
import {
  addSubscriberBody,
  enrolmentsQuery,
  includeSteps,
  moveBody,
  removeSubscriberEmail,
  SEQUENCE_BODY,
  sequenceBody,
  STEP_BODY,
  stepBody,
  SUBSCRIBER_BODY,
} from './sequences.schemas';
import { unrecognizedParameters, withWarnings } from '../warnings';

/** Sequences, their steps and enrolments (docs/sequences.md). Route handlers never catch. */
export function sequencesRoutes(container: DependencyContainer): Router {
  const router = Router();
  const id = (raw: string | string[] | undefined) => idParam(raw, SEQUENCE_NOT_FOUND);
  const stepId = (raw: string | string[] | undefined) => idParam(raw, STEP_NOT_FOUND);
  /** A sequence's answer: always with its counts, read after the change. */
  const answerSequence = async (
    res: Response,
    caller: ReturnType<typeof principal>,
    sequenceId: number,
    status: number,
    warnings = [] as ReturnType<typeof unrecognizedParameters>,
  ) => {
    const view = await container.resolve(GetSequence).execute(caller, { id: sequenceId, includeSteps: false });
    res.status(status).json(withWarnings(presentSequence(view.sequence, view.counts), warnings));
  };

  router.get('/sequences', async (req, res) => {
    const caller = principal(res, 'sequences_read');
    const { items, total } = await container.resolve(ListSequences).execute(caller, pageParams(req.query));
    res.json({ data: items.map((i) => presentSequence(i.sequence, i.counts)), total });
  });

  router.post('/sequences', async (req, res) => {
    const caller = principal(res, 'sequences_write');
    const sequence = await container.resolve(CreateSequence).execute(caller, sequenceBody(req.body));
    await answerSequence(res, caller, sequence.id, 201, unrecognizedParameters(req.body, SEQUENCE_BODY));
  });

  router.get('/sequences/:id', async (req, res) => {
    const caller = principal(res, 'sequences_read');
    const view = await container.resolve(GetSequence).execute(caller, { id: id(req.params.id), includeSteps: includeSteps(req.query) });
    res.json({ ...presentSequence(view.sequence, view.counts), ...(view.steps ? { steps: view.steps.map(presentStep) } : {}) });
  });

  router.patch('/sequences/:id', async (req, res) => {
    const caller = principal(res, 'sequences_write');
    const sequence = await container.resolve(UpdateSequence).execute(caller, { id: id(req.params.id), ...sequenceBody(req.body) });
    await answerSequence(res, caller, sequence.id, 200, unrecognizedParameters(req.body, SEQUENCE_BODY));
  });

  router.delete('/sequences/:id', async (req, res) => {
    const caller = principal(res, 'sequences_write');
    await container.resolve(DeleteSequence).execute(caller, { id: id(req.params.id) });
    res.json({ message: 'Sequence deleted' });
  });

  router.post('/sequences/:id/add_subscriber', async (req, res) => {
    const caller = principal(res, 'sequences_write', 'sequences_subscribers');
    principal(res, 'subscribers_write');
    const result = await container.resolve(AddSequenceSubscriber).execute(caller, { sequenceId: id(req.params.id), ...addSubscriberBody(req.body) });
    const warnings = unrecognizedParameters(req.body, SUBSCRIBER_BODY);
    if (result.kind === 'already_enrolled') {
      warnings.push({ code: 'already_enrolled', param: 'email', message: 'The subscriber is already in this sequence; nothing changed' });
    }
    res.status(result.kind === 'created' ? 201 : 200).json(withWarnings(presentEnrolment(result.enrolment), warnings));
  });

  router.delete('/sequences/:id/remove_subscriber', async (req, res) => {
    const caller = principal(res, 'sequences_write', 'sequences_subscribers');
    principal(res, 'subscribers_write');
    const email = removeSubscriberEmail(req.body, req.query);
    const enrolment = await container.resolve(RemoveSequenceSubscriber).execute(caller, { sequenceId: id(req.params.id), email });
    res.json({ message: 'Subscriber removed from sequence', subscriber_sequence: presentEnrolment(enrolment) });
  });

  router.get('/sequences/:id/list_subscribers', async (req, res) => {
    const caller = principal(res, 'sequences_read');
    principal(res, 'subscribers_read');
    const query = enrolmentsQuery(req.query);
    const { items, total } = await container.resolve(ListSequenceSubscribers).execute(caller, { sequenceId: id(req.params.id), ...query });
    const pages = Math.ceil(total / ENROLMENTS_PAGE_SIZE);
    res.json({
      subscriber_sequences: items.map(presentEnrolment),
      pagination: {
        prev: query.page > 1 ? query.page - 1 : null,
        next: query.page < pages ? query.page + 1 : null,
        count: total,
        pages,
        page: query.page,
      },
    });
  });

  router.get('/sequences/:id/steps', async (req, res) => {
    const caller = principal(res, 'sequences_read');
    const steps = await container.resolve(ListSteps).execute(caller, { sequenceId: id(req.params.id) });
    res.json({ data: steps.map(presentStep), total: steps.length });
  });

  router.post('/sequences/:id/steps', async (req, res) => {
    const caller = principal(res, 'sequences_write');
    const step = await container.resolve(CreateStep).execute(caller, { sequenceId: id(req.params.id), ...stepBody(req.body) });
    res.status(201).json(withWarnings(presentStep(step), unrecognizedParameters(req.body, STEP_BODY)));
  });

  router.get('/sequences/:id/steps/:step_id', async (req, res) => {
    const caller = principal(res, 'sequences_read');
    const step = await container.resolve(GetStep).execute(caller, { sequenceId: id(req.params.id), stepId: stepId(req.params.step_id) });
    res.json(presentStep(step));
  });

  router.patch('/sequences/:id/steps/:step_id', async (req, res) => {
    const caller = principal(res, 'sequences_write');
    const input = { sequenceId: id(req.params.id), stepId: stepId(req.params.step_id), ...stepBody(req.body) };
    const step = await container.resolve(UpdateStep).execute(caller, input);
    res.json(withWarnings(presentStep(step), unrecognizedParameters(req.body, STEP_BODY)));
  });

  router.delete('/sequences/:id/steps/:step_id', async (req, res) => {
    const caller = principal(res, 'sequences_write');
    await container.resolve(DeleteStep).execute(caller, { sequenceId: id(req.params.id), stepId: stepId(req.params.step_id) });
    res.json({ message: 'Step deleted' });
  });

  router.post('/sequences/:id/steps/:step_id/move', async (req, res) => {
    const caller = principal(res, 'sequences_write');
    const input = { sequenceId: id(req.params.id), stepId: stepId(req.params.step_id), underId: moveBody(req.body) };
    const step = await container.resolve(MoveStep).execute(caller, input);
    res.json(presentStep(step));
  });

  return router;
}
