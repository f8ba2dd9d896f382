import type { Logger } from '@mailcast/adapters';
import type { Request, RequestHandler } from 'express';

/**
 * One line per request with method, route, status and time. The path is logged without its
 * query string and headers are never logged, so tokens and addresses stay out of the logs.
 */
/**
 * The request's path as the client sent it, without the query string. Not req.path: inside a
 * mounted router Express rewrites req.url (`/broadcasts` for `/api/v1/broadcasts`).
 */
export function pathOf(req: Request): string {
  return req.originalUrl.split('?', 1)[0] ?? '';
}

/** Public pages carry a secret token in the path (double opt-in links): it stays out of the logs. */
export function loggablePath(path: string): string {
  // Public links carry a capability in the path (confirm, open, click, unsubscribe): whoever
  // reads a log line must not be able to act as the recipient.
  return path.replace(/^\/(confirm|t\/o|t\/c|u)\/[^/]+/, '/$1/:token');
}

export function requestLog(logger: Logger): RequestHandler {
  // Below info (LOG_LEVEL warn or error) the line would be dropped, but only after winston had
  // carried it through its streams: on every request, for nothing. The level is fixed at start.
  if (!logger.isInfoEnabled()) return (_req, _res, next) => next();
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const path = loggablePath(pathOf(req));
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(`${req.method} ${path} ${res.statusCode} ${ms.toFixed(1)}ms`, {
        http: { method: req.method, path, status: res.statusCode, durationMs: Math.round(ms * 10) / 10 },
      });
    });
    next();
  };
}
