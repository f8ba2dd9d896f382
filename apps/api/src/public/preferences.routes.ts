import { GetPreferences, SavePreferences, UnsubscribeByToken, type PreferencesView } from '@mailcast/core';
import { escapeHtml } from '@mailcast/domain';
import express, { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { sendPage } from './page';

const UNKNOWN = '<p>This preferences link is not valid. It may have been copied incompletely.</p>';

/** Form values arrive once (a string) or repeated (an array); anything else is none. */
const ids = (value: unknown): number[] =>
  (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string' && /^[1-9]\d{0,15}$/.test(v)).map(Number);

function page(token: string, v: PreferencesView, notice: string | null): string {
  const action = escapeHtml(encodeURIComponent(token));
  const status = v.unsubscribed ? '<p><strong>You are unsubscribed from all emails of this list.</strong> Your choices below are kept.</p>' : '';
  const topics = v.topics
    .map(
      (t) =>
        `<p><input type="hidden" name="shown" value="${t.id}"><label><input type="checkbox" name="receive" value="${t.id}"${t.receives ? ' checked' : ''}> ` +
        `${escapeHtml(t.name)}</label>${t.description ? `<br><small>${escapeHtml(t.description)}</small>` : ''}</p>`,
    )
    .join('');
  const choices =
    v.topics.length === 0
      ? ''
      : `<form method="post" action="${action}"><p>Choose what you receive:</p>${topics}<button type="submit">Save preferences</button></form>`;
  const unsubscribe = v.unsubscribed
    ? ''
    : `<form method="post" action="${action}"><input type="hidden" name="unsubscribe_all" value="1"><p>Or stop all emails of this list:</p><button type="submit">Unsubscribe from all</button></form>`;
  const who = `<p>For ${escapeHtml(v.email)}.</p>`;
  return `${notice ? `<p role="status">${escapeHtml(notice)}</p>` : ''}${who}${status}${choices}${unsubscribe}`;
}

/**
 * The preference page (docs/topics.md, "The preference page"): the token of the email's
 * unsubscribe link, under /preferences/. GET shows and changes nothing (link scanners follow
 * GETs); a POST saves the visible topics' choices, or unsubscribes from all as the unsubscribe
 * link does. A token that does not verify is a 404 page. Public; the pages' CSP allows no script.
 */
export function preferencesRoutes(container: DependencyContainer): Router {
  const router = Router();

  router.get('/preferences/:token', async (req, res) => {
    const token = String(req.params.token);
    const view = await container.resolve(GetPreferences).execute({ token });
    if (view === null) {
      sendPage(res, 404, 'Link not valid', UNKNOWN);
      return;
    }
    sendPage(res, 200, 'Email preferences', page(token, view, null));
  });

  router.post('/preferences/:token', express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 2_000 }), async (req, res) => {
    const token = String(req.params.token);
    const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
    if (body.unsubscribe_all !== undefined) {
      const result = await container.resolve(UnsubscribeByToken).execute({ token });
      if (result === null) {
        sendPage(res, 404, 'Link not valid', UNKNOWN);
        return;
      }
      sendPage(res, 200, 'You are unsubscribed', `<p>${escapeHtml(result.email)} receives no more emails from this list.</p>`);
      return;
    }
    const saved = await container.resolve(SavePreferences).execute({ token, shown: ids(body.shown), receiving: ids(body.receive) });
    if (saved === null) {
      sendPage(res, 404, 'Link not valid', UNKNOWN);
      return;
    }
    sendPage(res, 200, 'Email preferences', page(token, saved, saved.changed ? 'Your preferences are saved.' : 'Nothing changed.'));
  });

  return router;
}
