import {
  ActivateSubscriber,
  AddSubscriberTags,
  ChannelTopics,
  CreateSubscriber,
  DeactivateSubscriber,
  FindSubscriber,
  GetSubscriberHistory,
  HISTORY_PAGE_SIZE,
  ListSubscribers,
  RedactSubscriber,
  RemoveSubscriberTags,
  ResubscribeSubscriber,
  UnsubscribeSubscriber,
  UpdateSubscriber,
  type Principal,
  type Subscriber,
} from '@mailcast/core';
import { subscriberPagination } from '@mailcast/domain';
import { Router, type Request } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { principal } from '../auth';
import { presentHistoryEntry } from './history.presenter';
import { presentPendingSubscriber, subscriberPresenter } from './subscriber.presenter';
import {
  parseCreateBody,
  parseEmailParam,
  parseHistoryQuery,
  parseListQuery,
  parseTagsBody,
  parseUpdateBody,
  SUBSCRIBER_CREATE_BODY,
  SUBSCRIBER_UPDATE_BODY,
} from './subscribers.schemas';
import { parameterIgnored, unrecognizedParameters, withWarnings } from '../warnings';

type Body = Record<string, unknown>;

const bodyOf = (req: Request): Body => (typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? (req.body as Body) : {});

/** DELETE clients often send their parameters in the query string; the body wins when both do. */
const paramsOf = (req: Request): Body => ({ ...(req.query as Body), ...bodyOf(req) });

/** The spec's paths carry a `.json` suffix; they are the API (and what the OpenAPI document lists). */
const path = (p: string) => `${p}.json`;

/** Spec: Subscribers. Route handlers never catch: errors travel to the error handler. */
export function subscribersRoutes(container: DependencyContainer): Router {
  const router = Router();
  /**
   * The work and the channel's topics side by side (one read of the topics per request, beside
   * the work rather than after it), then the presenter that shows their values.
   */
  const withPresenter = async <T>(caller: Principal, work: Promise<T>) => {
    const [result, topics] = await Promise.all([work, container.resolve(ChannelTopics).execute(caller)]);
    return { result, present: subscriberPresenter(topics) };
  };

  router.get(path('/subscribers'), async (req, res) => {
    const caller = principal(res, 'subscribers_read');
    const { ignored, ...input } = parseListQuery(req.query);
    const { result, present } = await withPresenter(caller, container.resolve(ListSubscribers).execute(caller, input));
    const { items, total, page } = result;
    const warnings = ignored.map((param) => parameterIgnored(param, `${param} is not an ISO 8601 datetime; it was ignored`));
    res.json(
      withWarnings(
        {
          broadcast_channel_id: caller.channelId,
          subscribers: items.map(present),
          pagination: subscriberPagination(total, page, items.length),
        },
        warnings,
      ),
    );
  });

  router.get(path('/subscribers/find'), async (req, res) => {
    const caller = principal(res, 'subscribers_read');
    const { result, present } = await withPresenter(caller, container.resolve(FindSubscriber).execute(caller, { email: parseEmailParam(req.query as Body) }));
    res.json(present(result));
  });

  // docs/subscribers.md, "History": every email sent to the address, newest first, 100 a page.
  router.get(path('/subscribers/history'), async (req, res) => {
    const caller = principal(res, 'subscribers_read');
    const history = await container.resolve(GetSubscriberHistory).execute(caller, parseHistoryQuery(req.query as Body));
    res.json({
      broadcast_channel_id: caller.channelId,
      email: history.email,
      history: history.items.map(presentHistoryEntry),
      pagination: subscriberPagination(history.total, history.page, history.items.length, HISTORY_PAGE_SIZE),
    });
  });

  router.post(path('/subscribers'), async (req, res) => {
    const caller = principal(res, 'subscribers_write');
    const input = parseCreateBody(req.body);
    const warnings = unrecognizedParameters(req.body, SUBSCRIBER_CREATE_BODY);
    // docs/subscribers.md, Create with history: confirmed_at is an admin's to set (a migration of confirmed lists); a channel token's is dropped, and said so.
    if (input.confirmedAt !== undefined && caller.admin !== true) {
      delete input.confirmedAt;
      warnings.push(parameterIgnored('confirmed_at', 'confirmed_at is honoured only for admin tokens; it was ignored'));
    }
    const { result, present } = await withPresenter(caller, container.resolve(CreateSubscriber).execute(caller, input));
    if (result.kind === 'unchanged' && input.doubleOptIn !== null) {
      warnings.push({ code: 'double_opt_in_skipped', param: 'double_opt_in', message: 'The subscriber is already confirmed; no confirmation email was sent' });
    }
    switch (result.kind) {
      case 'pending':
        res.status(201).json(withWarnings(presentPendingSubscriber(result.subscriber, result.confirmationUrl), warnings));
        return;
      case 'created':
        res.status(201).json(withWarnings(present(result.subscriber), warnings));
        return;
      default:
        // docs/subscribers.md: create on an existing address is a 200.
        res.status(200).json(withWarnings(present(result.subscriber), warnings));
    }
  });

  router.patch(path('/subscribers'), async (req, res) => {
    const caller = principal(res, 'subscribers_write');
    const { result, present } = await withPresenter(caller, container.resolve(UpdateSubscriber).execute(caller, parseUpdateBody(req.body)));
    res.json(withWarnings(present(result), unrecognizedParameters(req.body, SUBSCRIBER_UPDATE_BODY)));
  });

  const byEmail = (method: 'post' | 'delete', name: string, run: (caller: Principal, params: Body) => Promise<Subscriber>) => {
    router[method](path(`/subscribers/${name}`), async (req, res) => {
      const caller = principal(res, 'subscribers_write');
      const { result, present } = await withPresenter(caller, run(caller, method === 'delete' ? paramsOf(req) : bodyOf(req)));
      res.json(present(result));
    });
  };

  byEmail('post', 'deactivate', (c, p) => container.resolve(DeactivateSubscriber).execute(c, { email: parseEmailParam(p) }));
  byEmail('post', 'activate', (c, p) => container.resolve(ActivateSubscriber).execute(c, { email: parseEmailParam(p) }));
  byEmail('post', 'unsubscribe', (c, p) => container.resolve(UnsubscribeSubscriber).execute(c, { email: parseEmailParam(p) }));
  byEmail('post', 'resubscribe', (c, p) => container.resolve(ResubscribeSubscriber).execute(c, { email: parseEmailParam(p) }));
  byEmail('post', 'add_tag', (c, p) => container.resolve(AddSubscriberTags).execute(c, parseTagsBody(p)));
  byEmail('delete', 'remove_tag', (c, p) => container.resolve(RemoveSubscriberTags).execute(c, parseTagsBody(p)));

  router.post(path('/subscribers/redact'), async (req, res) => {
    const caller = principal(res, 'subscribers_write');
    await container.resolve(RedactSubscriber).execute(caller, { email: parseEmailParam(bodyOf(req)) });
    res.json({ message: 'Subscriber redacted successfully' });
  });

  return router;
}
