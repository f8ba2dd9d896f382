import { GetUnsubscribeTarget, UnsubscribeByToken } from '@mailcast/core';
import { escapeHtml } from '@mailcast/domain';
import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { sendPage } from './page';

const UNKNOWN = '<p>This unsubscribe link is not valid. It may have been copied incompletely.</p>';

/**
 * The unsubscribe link (a page with a confirm button, so link scanners that follow GETs do not
 * unsubscribe anyone) and the RFC 8058 one-click POST (`List-Unsubscribe=One-Click`; any POST to
 * the URL unsubscribes, so the body is not parsed). Public and idempotent.
 */
export function unsubscribeRoutes(container: DependencyContainer): Router {
  const router = Router();

  router.get('/u/:token', async (req, res) => {
    const token = String(req.params.token);
    const target = await container.resolve(GetUnsubscribeTarget).execute({ token });
    if (target === null) {
      sendPage(res, 404, 'Link not valid', UNKNOWN);
      return;
    }
    if (target.unsubscribed) {
      sendPage(res, 200, 'You are unsubscribed', `<p>${escapeHtml(target.email)} receives no more emails from this list.</p>`);
      return;
    }
    sendPage(
      res,
      200,
      'Unsubscribe',
      `<p>Stop sending emails to ${escapeHtml(target.email)}?</p>` +
        `<form method="post" action="${escapeHtml(encodeURIComponent(token))}"><button type="submit">Unsubscribe</button></form>` +
        // docs/topics.md, "The preference page": the same token, to choose topics instead.
        `<p>Or <a href="../preferences/${escapeHtml(encodeURIComponent(token))}">choose which emails you receive</a>.</p>`,
    );
  });

  router.post('/u/:token', async (req, res) => {
    const result = await container.resolve(UnsubscribeByToken).execute({ token: String(req.params.token) });
    if (result === null) {
      sendPage(res, 404, 'Link not valid', UNKNOWN);
      return;
    }
    sendPage(res, 200, 'You are unsubscribed', `<p>${escapeHtml(result.email)} receives no more emails from this list.</p>`);
  });

  return router;
}
