import express, { Router, type RequestHandler } from 'express';
import path from 'node:path';
import { stringify } from 'yaml';
import { OPENAPI_DOCUMENT } from './document';

// Resolved through package.json rather than the package's main, which would load the whole
// browser bundle into the api process.
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** Only what the page loads; the rest of the package (its petstore demo page) stays unserved. */
const ASSETS = new Set(['/swagger-ui.css', '/swagger-ui-bundle.js', '/favicon-32x32.png', '/favicon-16x16.png']);

const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Mailcast API</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css">
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/mailcast-docs.js"></script>
  </body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to an online validator.
const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/v1/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

/**
 * Everything the page loads comes from this server (no CDN, nothing fetched from the internet),
 * so the policy allows only 'self'; inline styles are Swagger UI's own.
 */
const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy':
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
  });
  next();
};

/**
 * GET /api/v1/openapi.json, GET /api/v1/openapi (YAML) and GET /docs, all without authentication: mounted before the
 * authenticated /api/v1 router (app.ts).
 */
export function docsRoutes(): Router {
  const router = Router();
  const assets = express.static(SWAGGER_UI_DIR, { index: false, fallthrough: true, maxAge: '1d' });
  const body = JSON.stringify(OPENAPI_DOCUMENT);
  // No anchors or aliases: the document repeats objects, and YAML readers differ on aliases.
  const yaml = stringify(OPENAPI_DOCUMENT, { aliasDuplicateObjects: false, lineWidth: 0 });

  router.get('/api/v1/openapi.json', (_req, res) => {
    res.type('application/json').send(body);
  });

  // Clients of the reference service fetch the document as YAML at this path.
  router.get('/api/v1/openapi', (_req, res) => {
    res.type('application/yaml').send(yaml);
  });

  router.get('/docs', securityHeaders, (_req, res) => {
    res.type('html').send(PAGE);
  });

  // The page's assets: middleware, not routes, so they are not API operations to document.
  router.use('/docs', securityHeaders, (req, res, next) => {
    if (req.path === '/mailcast-docs.js' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.type('application/javascript').send(INITIALIZER);
      return;
    }
    if (ASSETS.has(req.path)) {
      assets(req, res, next);
      return;
    }
    next();
  });

  return router;
}
