import { ConfirmSubscription, UnsubscribeByConfirmationLink, type ConfirmationOutcome } from '@mailcast/core';
import { escapeHtml, machineAction } from '@mailcast/domain';
import express, { Router, type Request, type Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { sendPage } from './page';
import { trackingRequest } from './tracking.routes';

/** One of the small public pages (page.ts): a title, a sentence, and perhaps a form. */
function page(res: Response, status: number, title: string, message: string, extra = ''): void {
  sendPage(res, status, title, `<p>${escapeHtml(message)}</p>${extra}`);
}

const CONFIRM_PAGES: Record<ConfirmationOutcome['kind'], [number, string, string]> = {
  confirmed: [200, 'Subscription confirmed', 'Thank you! Your subscription is confirmed.'],
  already_confirmed: [200, 'Already confirmed', 'Your subscription was already confirmed. Nothing else to do.'],
  superseded: [410, 'This link has been replaced', 'A newer confirmation email was sent to you. Please use the link in the most recent email.'],
  unknown: [404, 'Link not valid', 'This confirmation link is not valid. It may be mistyped or no longer in use.'],
};

/** A form whose button a person presses; its field tells the POST so (docs/engagement.md). */
const form = (action: string, label: string): string =>
  `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="confirmed_by" value="person"><button type="submit">${escapeHtml(label)}</button></form>`;

const byPerson = (req: Request): boolean => (req.body as Record<string, unknown> | undefined)?.confirmed_by === 'person';

/** The machine rules that apply without a delivery time: HEAD and the bot list's agents. */
const flagged = (req: Request): boolean => machineAction({ ...trackingRequest(req), deliveredAt: null, at: new Date(0) }) !== null;

/**
 * Public double opt-in pages (no authentication), mounted at the root, outside /api/v1.
 *
 * GET /confirm/:token confirms at once (docs/api-decisions.md: opening the link confirms), unless
 * the machine rules flag the request (HEAD, a bot list's agent: docs/engagement.md); then it shows
 * a button whose POST confirms, so a link scanner never confirms for a person.
 * GET /confirm/:token/unsubscribe only shows a button, and POST (the button, or an RFC 8058
 * one-click request from the List-Unsubscribe header, unless the rules flag it) unsubscribes: a
 * scanner must never opt a person out. The delivery time of a confirmation email is not kept, so
 * the timing rule does not apply here.
 */
export function confirmationRoutes(container: DependencyContainer): Router {
  const router = Router();

  /** Confirms, then sends the person to the form's page when it names one, else says so here. */
  const confirmAndAnswer = async (req: Request, res: Response): Promise<void> => {
    const outcome = await container.resolve(ConfirmSubscription).execute({ token: String(req.params.token) });
    if (outcome.kind === 'confirmed' && outcome.redirectUrl !== null) {
      // 303: whatever the method was, the browser GETs the form's page (docs/opt-in-forms.md, "After confirming").
      res.redirect(303, outcome.redirectUrl);
      return;
    }
    const [status, title, message] = CONFIRM_PAGES[outcome.kind];
    page(res, status, title, message);
  };

  router.get('/confirm/:token', async (req, res) => {
    if (flagged(req)) {
      const action = `/confirm/${encodeURIComponent(req.params.token)}`;
      page(res, 200, 'Confirm your subscription', 'Press the button to confirm your subscription.', form(action, 'Confirm subscription'));
      return;
    }
    await confirmAndAnswer(req, res);
  });

  // The button of the page above: a person's press.
  router.post('/confirm/:token', confirmAndAnswer);

  router.get('/confirm/:token/unsubscribe', (req, res) => {
    const action = `/confirm/${encodeURIComponent(req.params.token)}/unsubscribe`;
    page(
      res,
      200,
      'Unsubscribe',
      'Did you not ask to subscribe, or changed your mind? Press the button to stop all emails to this address.',
      form(action, 'Unsubscribe'),
    );
  });

  router.post('/confirm/:token/unsubscribe', express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 }), async (req, res) => {
    if (!byPerson(req) && flagged(req)) {
      const action = `/confirm/${encodeURIComponent(req.params.token)}/unsubscribe`;
      page(res, 200, 'Unsubscribe', 'Press the button to stop all emails to this address.', form(action, 'Unsubscribe'));
      return;
    }
    const outcome = await container.resolve(UnsubscribeByConfirmationLink).execute({ token: req.params.token });
    if (outcome.kind === 'unknown') {
      page(res, 404, 'Link not valid', 'This unsubscribe link is not valid. It may be mistyped or no longer in use.');
      return;
    }
    page(res, 200, 'Unsubscribed', 'You are unsubscribed and will receive no more emails from this list.');
  });

  return router;
}
