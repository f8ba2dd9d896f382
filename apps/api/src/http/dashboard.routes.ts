import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** Where `npm run build` writes the dashboard (apps/dashboard/build.mjs). */
export const DASHBOARD_DIR = path.join(path.dirname(require.resolve('@mailcast/dashboard/package.json')), 'dist/app');

/**
 * The dashboard loads only its own files (no inline script or style, no CDN), talks only to this
 * origin, and is never framed: docs/dashboard.md, "Content-Security-Policy".
 */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
  "manifest-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * The email preview's frame: an email's inline styles apply, nothing else does (no script of the
 * email, no remote image or font, no form); only the dashboard may frame it. Its loader script is
 * fetched from the sandbox's opaque origin, so these two files are not limited to same-origin.
 */
export const PREVIEW_FRAME_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";
const PREVIEW_FRAME_FILES = new Set(['/preview-frame.html', '/preview-frame.js']);

const securityHeaders: RequestHandler = (req, res, next) => {
  if (PREVIEW_FRAME_FILES.has(req.path)) {
    res.set({
      'Content-Security-Policy': PREVIEW_FRAME_CSP,
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'SAMEORIGIN',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Resource-Policy': 'cross-origin',
    });
    return next();
  }
  res.set({
    'Content-Security-Policy': DASHBOARD_CSP,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  });
  next();
};

/** The encodings the build writes beside each script and stylesheet, best first. */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;
const COMPRESSIBLE = new Set(['.js', '.css']);

/**
 * Sends the build's compressed copy of a script or stylesheet when the browser accepts one
 * (docs/dashboard.md, "Bundle size"); false when there is none to send, for the plain file.
 */
function sendCompressed(dir: string): (req: Request, res: Response) => boolean {
  return (req, res) => {
    const extension = path.extname(req.path);
    if (!COMPRESSIBLE.has(extension) || req.path.includes('..')) return false;
    res.vary('Accept-Encoding');
    const encoding = ENCODINGS.find((e) => req.acceptsEncodings(e.name) === e.name && existsSync(path.join(dir, req.path + e.suffix)));
    if (encoding === undefined) return false;
    res.set({ 'Content-Encoding': encoding.name, 'Cache-Control': 'public, max-age=300' });
    res.type(extension).sendFile(path.join(dir, req.path + encoding.suffix));
    return true;
  };
}

/**
 * GET /app and everything under it: the built files, and the page itself for every other path
 * (the dashboard routes in the browser). Public, like /docs: the page holds no data; every call
 * it makes carries the token the user signs in with.
 */
export function dashboardRoutes(dir: string = DASHBOARD_DIR): Router {
  const router = Router();
  const index = path.join(dir, 'index.html');
  // The page is revalidated on every load (it names the current bundle); the bundle itself is
  // cached briefly, as its name does not change between builds.
  const assets = express.static(dir, { index: false, fallthrough: true, maxAge: '5m', redirect: false });
  const compressed = sendCompressed(dir);
  router.use('/app', securityHeaders, (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (!existsSync(index)) {
      res.status(503).type('text/plain').send('The dashboard is not built: run `npm run build`.');
      return;
    }
    if (req.path !== '/' && path.extname(req.path) !== '') return compressed(req, res) ? undefined : assets(req, res, next);
    res.set('Cache-Control', 'no-cache').sendFile(index);
  });
  return router;
}
