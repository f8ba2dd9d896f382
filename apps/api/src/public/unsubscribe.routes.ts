import { GetUnsubscribeTarget, UnsubscribeByToken } from '@mailcast/core';
import { escapeHtml } from '@mailcast/domain';
import express, { Router, type Request } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { sendPage } from './page';
import { trackingRequest } from './tracking.routes';

const UNKNOWN = '<p>This unsubscribe link is not valid. It may have been copied incompletely.</p>';

/** The page's button, which a person presses: it carries this field, so no rule holds it back. */
const PERSON_FIELD = '<input type="hidden" name="confirmed_by" value="person">';

/** The page with the button: what a GET shows, and what a held one-click POST gets instead. */
function confirmPage(token: string, email: string): string {
  return (
    `<p>Stop sending emails to ${escapeHtml(email)}?</p>` +
    `<form method="post" action="${escapeHtml(encodeURIComponent(token))}">${PERSON_FIELD}<button type="submit">Unsubscribe</button></form>` +
    // docs/topics.md, "The preference page": the same token, to choose topics instead.
    `<p>Or <a href="../preferences/${escapeHtml(encodeURIComponent(token))}">choose which emails you receive</a>.</p>`
  );
}

const byPerson = (req: Request): boolean => (req.body as Record<string, unknown> | undefined)?.confirmed_by === 'person';

/**
 * The unsubscribe link (a page with a confirm button, so link scanners that follow GETs do not
 * unsubscribe anyone) and the RFC 8058 one-click POST (`List-Unsubscribe=One-Click`; any POST to
 * the URL unsubscribes, unless the machine rules flag it: then it gets the page with the button,
 * docs/engagement.md). The button's POST always unsubscribes. Public and idempotent.
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
    sendPage(res, 200, 'Unsubscribe', confirmPage(token, target.email));
  });

  router.post('/u/:token', express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 }), async (req, res) => {
    const token = String(req.params.token);
    const result = await container.resolve(UnsubscribeByToken).execute({ token, ...(byPerson(req) ? {} : { request: trackingRequest(req) }) });
    if (result === null) {
      sendPage(res, 404, 'Link not valid', UNKNOWN);
      return;
    }
    if (result.held !== undefined) {
      sendPage(res, 200, 'Unsubscribe', confirmPage(token, result.email));
      return;
    }
    sendPage(res, 200, 'You are unsubscribed', `<p>${escapeHtml(result.email)} receives no more emails from this list.</p>`);
  });

  return router;
}
