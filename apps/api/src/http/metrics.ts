import {
  ConfigToken,
  DatabaseToken,
  createMetricsRegistry,
  type Config,
  registerAgeMetrics,
  registerBusinessMetrics,
  type Database,
  type Registry,
} from '@mailcast/adapters';
import { Router, type Request, type RequestHandler } from 'express';
import { Counter, Histogram } from 'prom-client';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { DependencyContainer } from 'tsyringe';

/** Routers mounted at a path (apps/api/src/http/app.ts): Express's route template leaves the path out. */
const MOUNTED_ROUTERS = ['/api/v1', '/f'];

/**
 * The route a request matched, as a template (`/api/v1/broadcasts/:id`), so the label set stays
 * bounded however many ids there are. Express leaves the matched route on the request; an
 * unmatched request is `unmatched` rather than its raw path.
 */
function routeOf(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (typeof route?.path !== 'string') return 'unmatched';
  const mount = MOUNTED_ROUTERS.find((prefix) => req.originalUrl === prefix || req.originalUrl.startsWith(`${prefix}/`));
  return mount === undefined ? route.path : `${mount}${route.path}`;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * With METRICS_TOKEN set, /metrics answers only its bearer (docs/security.md "Metrics"): the
 * figures are deployment-wide, across every channel. Compared in constant time.
 */
function metricsAuthorized(req: Request, token: string | undefined): boolean {
  if (token === undefined) return true;
  const header = req.get('authorization') ?? '';
  const match = /^Bearer (\S+)$/i.exec(header);
  return match !== null && timingSafeEqual(digest(match[1] ?? ''), digest(token));
}

export interface ApiMetrics {
  registry: Registry;
  middleware: RequestHandler;
  routes: Router;
}

/** HTTP metrics of this process beside the deployment's business figures (docs/operations.md). */
export function apiMetrics(container: DependencyContainer): ApiMetrics {
  const registry = createMetricsRegistry('api');
  registerBusinessMetrics(registry, container.resolve<Database>(DatabaseToken));
  registerAgeMetrics(registry, container.resolve<Database>(DatabaseToken));
  const requests = new Counter({
    name: 'mailcast_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'mailcast_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route template and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });

  const middleware: RequestHandler = (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const labels = { method: req.method, route: routeOf(req), status: String(res.statusCode) };
      requests.inc(labels);
      duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };

  const routes = Router();
  const { metricsToken } = container.resolve<Config>(ConfigToken);
  routes.get('/metrics', async (req, res) => {
    if (!metricsAuthorized(req, metricsToken)) {
      res.set('WWW-Authenticate', 'Bearer').status(401).json({ error: 'Unauthorized' });
      return;
    }
    res.type(registry.contentType).send(await registry.metrics());
  });
  return { registry, middleware, routes };
}
