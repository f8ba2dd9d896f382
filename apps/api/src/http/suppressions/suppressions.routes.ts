import {
  GLOBAL_SUPPRESSIONS_ADMIN_ONLY,
  requireAdmin,
  AddSuppression,
  AddSuppressionsInBulk,
  CheckSuppression,
  ListSuppressions,
  RemoveSuppression,
  RemoveSuppressionsInBulk,
  type Suppression,
} from '@mailcast/core';
import { subscriberPagination, SUPPRESSIONS_PAGE_SIZE, type Permission, type SuppressionScope } from '@mailcast/domain';
import { Router, type Request, type Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { anyPrincipal, principal as permitted } from '../auth';
import { parseSuppressionEmail, parseSuppressionEmails, parseSuppressionListQuery } from './suppressions.schemas';
import { unrecognizedParameters, withWarnings } from '../warnings';

const presentSuppression = (s: Suppression) => ({ email: s.email, reason: s.reason, created_at: s.createdAt.toISOString() });

/** DELETE clients often send their parameters in the query string; the body wins when both do. */
const paramsOf = (req: Request): Record<string, unknown> => ({
  ...(req.query as Record<string, unknown>),
  ...(typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {}),
});

/**
 * The channel's list (/suppressions) and the installation-wide one (/global_suppressions), same
 * shapes; reading either needs suppressions_read, changing the global one global_suppressions_write,
 * and the global one is an admin token's alone: a channel token gets 403 before its body is read.
 */
export function suppressionsRoutes(container: DependencyContainer): Router {
  const router = Router();

  const list = (prefix: string, scope: SuppressionScope, write: Permission) => {
    const principal = (res: Response, permission: Permission) => {
      if (scope === 'global') requireAdmin(anyPrincipal(res), GLOBAL_SUPPRESSIONS_ADMIN_ONLY);
      return permitted(res, permission);
    };

    router.get(`/${prefix}.json`, async (req, res) => {
      const caller = principal(res, 'suppressions_read');
      const { items, total, page } = await container.resolve(ListSuppressions).execute(caller, { scope, ...parseSuppressionListQuery(req.query) });
      res.json({ suppressions: items.map(presentSuppression), pagination: subscriberPagination(total, page, items.length, SUPPRESSIONS_PAGE_SIZE) });
    });

    router.post(`/${prefix}.json`, async (req, res) => {
      const caller = principal(res, write);
      const { suppression, created } = await container.resolve(AddSuppression).execute(caller, { scope, email: parseSuppressionEmail(req.body) });
      // An unknown attribute is answered with a warning, as on every create (docs/suppressions.md).
      const shape = { key: scope === 'global' ? 'global_suppression' : 'suppression', fields: ['email'] };
      res.status(created ? 201 : 200).json(withWarnings(presentSuppression(suppression), unrecognizedParameters(req.body, shape)));
    });

    router.delete(`/${prefix}.json`, async (req, res) => {
      const caller = principal(res, write);
      const removed = await container.resolve(RemoveSuppression).execute(caller, { scope, email: parseSuppressionEmail(paramsOf(req)) });
      res.json({ removed });
    });

    router.post(`/${prefix}/bulk.json`, async (req, res) => {
      const caller = principal(res, write);
      const result = await container.resolve(AddSuppressionsInBulk).execute(caller, { scope, emails: parseSuppressionEmails(req.body) });
      res.json({ added: result.added, already_suppressed: result.alreadySuppressed, invalid: result.invalid.length, invalid_emails: result.invalid });
    });

    router.delete(`/${prefix}/bulk.json`, async (req, res) => {
      const caller = principal(res, write);
      const result = await container.resolve(RemoveSuppressionsInBulk).execute(caller, { scope, emails: parseSuppressionEmails(req.body) });
      res.json({ removed: result.removed, not_found: result.notFound, invalid: result.invalid.length, invalid_emails: result.invalid });
    });
  };

  router.get('/suppressions/check.json', async (req, res) => {
    const caller = permitted(res, 'suppressions_read');
    const check = await container.resolve(CheckSuppression).execute(caller, { email: parseSuppressionEmail(req.query) });
    res.json(check);
  });
  list('suppressions', 'channel', 'suppressions_write');
  list('global_suppressions', 'global', 'global_suppressions_write');
  return router;
}
