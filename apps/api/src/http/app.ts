import { ConfigToken, LoggerToken, type Config, type Logger } from '@mailcast/adapters';
import express, { type Express } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { authenticate } from './auth';
import { broadcastsRoutes } from './broadcasts.routes';
import { errorHandler, notFound } from './error-handler';
import { healthRoutes } from './health.routes';
import { rateLimit } from './rate-limit';
import { requestLog } from './request-log';
import { webhookEndpointsRoutes } from './webhook-endpoints.routes';

export const JSON_BODY_LIMIT = '1mb';

export function createApp(container: DependencyContainer): Express {
  const logger = container.resolve<Logger>(LoggerToken);
  const config = container.resolve<Config>(ConfigToken);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  // Clients send tags[]=a&tags[]=b and custom_data[key]=value (CONTRACT §2): nested parsing.
  app.set('query parser', 'extended');

  app.use(requestLog(logger));
  app.use(healthRoutes(container));

  const api = express.Router();
  api.use(authenticate(container));
  api.use(rateLimit(container, config.rateLimitPerMinute));
  api.use(express.json({ limit: JSON_BODY_LIMIT }));
  api.use(broadcastsRoutes(container));
  api.use(webhookEndpointsRoutes(container));
  app.use('/api/v1', api);

  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}
