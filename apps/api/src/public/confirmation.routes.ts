import { ConfirmSubscription, UnsubscribeByConfirmationLink, type ConfirmationOutcome } from '@mailcast/core';
import { escapeHtml } from '@mailcast/domain';
import { Router, type Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { sendPage } from './page';

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

/**
 * Public double opt-in pages (no authentication), mounted at the root, outside /api/v1.
 *
 * GET /confirm/:token confirms at once (docs/api-decisions.md: opening the link confirms). Mail scanners
 * that prefetch links can therefore confirm too; the address did receive the email, which is
 * what double opt-in proves, and a second step would lose real confirmations.
 * GET /confirm/:token/unsubscribe only shows a button, and POST (the button, or an RFC 8058
 * one-click request from the List-Unsubscribe header) unsubscribes: a scanner must never
 * opt a person out.
 */
export function confirmationRoutes(container: DependencyContainer): Router {
  const router = Router();

  router.get('/confirm/:token', async (req, res) => {
    const outcome = await container.resolve(ConfirmSubscription).execute({ token: req.params.token });
    const [status, title, message] = CONFIRM_PAGES[outcome.kind];
    page(res, status, title, message);
  });

  router.get('/confirm/:token/unsubscribe', (req, res) => {
    const action = `/confirm/${encodeURIComponent(req.params.token)}/unsubscribe`;
    page(
      res,
      200,
      'Unsubscribe',
      'Did you not ask to subscribe, or changed your mind? Press the button to stop all emails to this address.',
      `<form method="post" action="${escapeHtml(action)}"><button type="submit">Unsubscribe</button></form>`,
    );
  });

  router.post('/confirm/:token/unsubscribe', async (req, res) => {
    const outcome = await container.resolve(UnsubscribeByConfirmationLink).execute({ token: req.params.token });
    if (outcome.kind === 'unknown') {
      page(res, 404, 'Link not valid', 'This unsubscribe link is not valid. It may be mistyped or no longer in use.');
      return;
    }
    page(res, 200, 'Unsubscribed', 'You are unsubscribed and will receive no more emails from this list.');
  });

  return router;
}
