import { RecordClick, RecordOpen, type TrackingRequest } from '@mailcast/core';
import { Router, type Request } from 'express';
import { isbot } from 'isbot';
import type { DependencyContainer } from 'tsyringe';

// The smallest transparent GIF.
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/**
 * What the classification of an open or click needs of the request (docs/engagement.md): the
 * method (Express serves HEAD through the GET routes), the agent and the maintained bot list's
 * verdict on it, which the domain cannot ask for itself.
 */
export function trackingRequest(req: Request): TrackingRequest {
  const userAgent = req.get('user-agent') ?? null;
  return { method: req.method, userAgent, isKnownBot: userAgent !== null && isbot(userAgent) };
}

/**
 * Open pixel and click redirects, public (a mail client has no token). Every load and click is
 * recorded with its time. A click redirects only to the URL stored for that broadcast's link,
 * so the route cannot be used as an open redirect; an unknown token is a plain 404.
 */
export function trackingRoutes(container: DependencyContainer): Router {
  const router = Router();

  router.get('/t/o/:token', async (req, res) => {
    const found = await container.resolve(RecordOpen).execute({ token: String(req.params.token), request: trackingRequest(req) });
    if (!found) {
      res.status(404).type('text/plain').send('Not found');
      return;
    }
    // Never cached, so each open reaches us. Webmail shows the image from its own origin, so
    // the pixel must be loadable cross-origin (helmet's default resource policy is same-origin).
    res
      .status(200)
      .set({
        'Content-Type': 'image/gif',
        'Cache-Control': 'no-store, no-cache, must-revalidate, private',
        Pragma: 'no-cache',
        Expires: '0',
        'Cross-Origin-Resource-Policy': 'cross-origin',
      })
      .send(PIXEL);
  });

  router.get('/t/c/:token/:link', async (req, res) => {
    const url = await container.resolve(RecordClick).execute({
      token: String(req.params.token),
      link: String(req.params.link),
      request: trackingRequest(req),
    });
    if (url === null) {
      res.status(404).type('text/plain').send('This link is not valid.');
      return;
    }
    res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }).redirect(302, url);
  });

  return router;
}
