import { ConfirmSubscription, UnsubscribeByConfirmationLink, type ConfirmationOutcome } from '@mailcast/core';
import { Router, type Response } from 'express';
import type { DependencyContainer } from 'tsyringe';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A small, self-contained page: no scripts, no external assets, nothing to leak the token to. */
function page(res: Response, status: number, title: string, message: string, extra = ''): void {
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      // The token is in the URL: never send it on as a Referer, never frame the page.
      'Referrer-Policy': 'no-referrer',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      'X-Content-Type-Options': 'nosniff',
    })
    .send(
      `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}button{font-size:1rem;padding:.5rem 1rem}</style></head>
<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${extra}</body>
</html>
`,
    );
}

const CONFIRM_PAGES: Record<ConfirmationOutcome['kind'], [number, string, string]> = {
  confirmed: [200, 'Subscription confirmed', 'Thank you! Your subscription is confirmed.'],
  already_confirmed: [200, 'Already confirmed', 'Your subscription was already confirmed. Nothing else to do.'],
  superseded: [
    410,
    'This link has been replaced',
    'A newer confirmation email was sent to you. Please use the link in the most recent email.',
  ],
  unknown: [404, 'Link not valid', 'This confirmation link is not valid. It may be mistyped or no longer in use.'],
};

/**
 * Public double opt-in pages (no authentication), mounted at the root, outside /api/v1.
 *
 * GET /confirm/:token confirms at once (CONTRACT: opening the link confirms). Mail scanners
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
