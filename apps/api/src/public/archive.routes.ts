import { GetPublicArchive, GetWebView } from '@mailcast/core';
import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { atomFeed, sendArchiveList, sendArchivedCopy, sendNotFound, sendWebView } from './archive-pages';

const ID = /^[1-9]\d{0,15}$/;

/**
 * The public archive and the recipients' web views (docs/archive.md): GET only, no token, and
 * nothing is recorded or changed by opening them. Anything unknown is the same 404 page.
 */
export function archiveRoutes(container: DependencyContainer): Router {
  const router = Router();

  router.get('/archive/:slug', async (req, res) => {
    const archive = await container.resolve(GetPublicArchive).list({ slug: String(req.params.slug) });
    if (archive === null) sendNotFound(res);
    else sendArchiveList(res, archive);
  });

  router.get('/archive/:slug/feed.atom', async (req, res) => {
    const feed = await container.resolve(GetPublicArchive).feed({ slug: String(req.params.slug) });
    if (feed === null) {
      sendNotFound(res);
      return;
    }
    res
      .status(200)
      .set({ 'Content-Type': 'application/atom+xml; charset=utf-8', 'Cache-Control': 'public, max-age=300', 'X-Content-Type-Options': 'nosniff' })
      .send(atomFeed(feed.archive, feed.entries));
  });

  router.get('/archive/:slug/:id', async (req, res) => {
    const id = String(req.params.id);
    const copy = ID.test(id) ? await container.resolve(GetPublicArchive).copy({ slug: String(req.params.slug), id: Number(id) }) : null;
    if (copy === null) sendNotFound(res);
    else sendArchivedCopy(res, copy);
  });

  router.get('/w/:token', async (req, res) => {
    const copy = await container.resolve(GetWebView).execute({ token: String(req.params.token) });
    if (copy === null) sendNotFound(res, true);
    else sendWebView(res, copy);
  });

  return router;
}
