import { BROADCAST_NOT_FOUND, GetBroadcastLinkStatistics, GetBroadcastStatistics, GetBroadcastTimeline, ValidationError } from '@mailcast/core';
import { Router } from 'express';
import Joi from 'joi';
import type { DependencyContainer } from 'tsyringe';
import { principal } from '../auth';
import { presentLinkStatistics, presentStatistics, presentTimeline } from './broadcast-statistics.presenter';
import { idParam } from '../params';

// Each parameter once, as a string: a repeated `timeframe=a&timeframe=b` (an array) or a nested
// `metrics[x]=y` (an object) is a 422, not whichever value came first. The domain judges values.
const text = Joi.string().allow('');
const labels = { errors: { wrap: { label: false as const } } };
const timelineQuery = Joi.object({ timeframe: text, metrics: text }).unknown(true).prefs(labels);
const linksQuery = Joi.object({ sort: text, order: text, limit: text }).unknown(true).prefs(labels);

function queryOf<T>(schema: Joi.ObjectSchema, query: unknown): T {
  const { value, error } = schema.validate(query, { abortEarly: false, convert: false });
  if (error) throw new ValidationError(error.details[0]?.message ?? 'Invalid query');
  return value as T;
}

/** Spec: Broadcasts Statistics, Timeline and Link statistics. Route handlers never catch. */
export function broadcastStatisticsRoutes(container: DependencyContainer): Router {
  const router = Router();

  router.get('/broadcasts/:id/statistics', async (req, res) => {
    const caller = principal(res, 'broadcasts_read');
    const result = await container.resolve(GetBroadcastStatistics).execute(caller, { id: idParam(req.params.id, BROADCAST_NOT_FOUND) });
    res.json(presentStatistics(result.broadcast, result.summary, result.abTest));
  });

  router.get('/broadcasts/:id/statistics/timeline', async (req, res) => {
    const caller = principal(res, 'broadcasts_read');
    const id = idParam(req.params.id, BROADCAST_NOT_FOUND);
    const query = queryOf<{ timeframe?: string; metrics?: string }>(timelineQuery, req.query);
    const timeline = await container.resolve(GetBroadcastTimeline).execute(caller, { id, ...query });
    res.json(presentTimeline(timeline));
  });

  router.get('/broadcasts/:id/statistics/links', async (req, res) => {
    const caller = principal(res, 'broadcasts_read');
    const id = idParam(req.params.id, BROADCAST_NOT_FOUND);
    const query = queryOf<{ sort?: string; order?: string; limit?: string }>(linksQuery, req.query);
    const links = await container.resolve(GetBroadcastLinkStatistics).execute(caller, { id, ...query });
    res.json(presentLinkStatistics(links));
  });

  return router;
}
