import {
  ChannelTopics,
  CountSegmentRules,
  CreateSegment,
  DeleteSegment,
  GetSegment,
  ListSegments,
  SEGMENT_NOT_FOUND,
  SEGMENT_PAGE_SIZE,
  UpdateSegment,
} from '@mailcast/core';
import { subscriberPagination } from '@mailcast/domain';
import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { principal } from '../auth';
import { idParam, pageParams } from '../params';
import { presentSegment } from './segment.presenter';
import { SEGMENT_BODY, segmentBody, segmentPage } from './segments.schemas';
import { subscriberPresenter } from '../subscribers/subscriber.presenter';
import { unrecognizedParameters, withWarnings } from '../warnings';

/** Segments (docs/segments.md). Route handlers never catch: errors travel to the error handler. */
export function segmentsRoutes(container: DependencyContainer): Router {
  const router = Router();
  const id = (raw: string | string[] | undefined) => idParam(raw, SEGMENT_NOT_FOUND);

  router.get('/segments.json', async (req, res) => {
    const caller = principal(res, 'segments_read');
    const { items, total } = await container.resolve(ListSegments).execute(caller, pageParams(req.query));
    res.json({ data: items.map(presentSegment), total });
  });

  router.get('/segments/:id.json', async (req, res) => {
    const caller = principal(res, 'segments_read');
    const page = segmentPage(req.query);
    // Once the answer is gone (sent, or its client went away) nothing may still run for it in
    // PostgreSQL: neither a count nobody waits for, nor the page beside a count that already
    // answered its time-out (docs/segments.md, "Bounds").
    const gone = new AbortController();
    res.on('close', () => gone.abort(new Error('the answer is gone')));
    const found = await container.resolve(GetSegment).execute(caller, { id: id(req.params.id), page, signal: gone.signal });
    // After the evaluation, not beside it: a count that runs to its time-out holds no second connection.
    const topics = await container.resolve(ChannelTopics).execute(caller);
    res.json({
      ...presentSegment(found.segment),
      subscribers_count: found.subscribersCount,
      subscribers: found.subscribers.map(subscriberPresenter(topics)),
      pagination: subscriberPagination(found.subscribersCount, page, found.subscribers.length, SEGMENT_PAGE_SIZE),
    });
  });

  // A read, though a POST: the rules may be long (100 of up to 1,000 characters), too long for a
  // query string. Checked as a create checks them; counted like a segment's read (docs/segments.md,
  // "Counting unsaved rules").
  router.post('/segments/count', async (req, res) => {
    const caller = principal(res, 'segments_read');
    const { match, rules } = segmentBody(req.body);
    const gone = new AbortController();
    res.on('close', () => gone.abort(new Error('the answer is gone')));
    const count = await container.resolve(CountSegmentRules).execute(caller, { match, rules, signal: gone.signal });
    res.json(withWarnings({ subscribers_count: count }, unrecognizedParameters(req.body, SEGMENT_BODY)));
  });

  router.post('/segments', async (req, res) => {
    const caller = principal(res, 'segments_write');
    const segment = await container.resolve(CreateSegment).execute(caller, segmentBody(req.body));
    res.status(201).json(withWarnings(presentSegment(segment), unrecognizedParameters(req.body, SEGMENT_BODY)));
  });

  router.patch('/segments/:id', async (req, res) => {
    const caller = principal(res, 'segments_write');
    const segmentId = id(req.params.id);
    const segment = await container.resolve(UpdateSegment).execute(caller, { id: segmentId, ...segmentBody(req.body) });
    res.json(withWarnings(presentSegment(segment), unrecognizedParameters(req.body, SEGMENT_BODY)));
  });

  router.delete('/segments/:id', async (req, res) => {
    const caller = principal(res, 'segments_write');
    await container.resolve(DeleteSegment).execute(caller, { id: id(req.params.id) });
    res.json({ message: 'Segment deleted' });
  });

  return router;
}
