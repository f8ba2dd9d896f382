import { CreateTopic, DeleteTopic, GetTopic, ListTopics, TOPIC_NOT_FOUND, UpdateTopic } from '@mailcast/core';
import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { principal } from '../auth';
import { idParam, pageParams } from '../params';
import { unrecognizedParameters, withWarnings } from '../warnings';
import { presentTopic } from './topic.presenter';
import { TOPIC_BODY, topicBody } from './topics.schemas';

/** Topics (docs/topics.md, "The API"): the subscribers permissions; paths as the segments'. Route handlers never catch. */
export function topicsRoutes(container: DependencyContainer): Router {
  const router = Router();
  const id = (raw: string | string[] | undefined) => idParam(raw, TOPIC_NOT_FOUND);

  router.get('/topics.json', async (req, res) => {
    const caller = principal(res, 'subscribers_read');
    const { items, total } = await container.resolve(ListTopics).execute(caller, pageParams(req.query));
    res.json({ data: items.map((t) => presentTopic(t)), total });
  });

  router.post('/topics', async (req, res) => {
    const caller = principal(res, 'subscribers_write');
    const topic = await container.resolve(CreateTopic).execute(caller, topicBody(req.body));
    res.status(201).json(withWarnings(presentTopic(topic), unrecognizedParameters(req.body, TOPIC_BODY)));
  });

  router.get('/topics/:id.json', async (req, res) => {
    const caller = principal(res, 'subscribers_read');
    const { topic, counts } = await container.resolve(GetTopic).execute(caller, { id: id(req.params.id) });
    res.json(presentTopic(topic, counts));
  });

  router.patch('/topics/:id', async (req, res) => {
    const caller = principal(res, 'subscribers_write');
    const topic = await container.resolve(UpdateTopic).execute(caller, { id: id(req.params.id), ...topicBody(req.body) });
    res.json(withWarnings(presentTopic(topic), unrecognizedParameters(req.body, TOPIC_BODY)));
  });

  router.delete('/topics/:id', async (req, res) => {
    const caller = principal(res, 'subscribers_write');
    await container.resolve(DeleteTopic).execute(caller, { id: id(req.params.id) });
    res.json({ message: 'Topic deleted' });
  });

  return router;
}
