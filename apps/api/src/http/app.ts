import { ConfigToken, LoggerToken, type Config, type Logger } from '@mailcast/adapters';
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { DependencyContainer } from 'tsyringe';
import { docsRoutes } from '../openapi/docs.routes';
import { actingChannel, authenticate } from './auth';
import { auditLogRoutes } from './audit-log/audit-log.routes';
import { auditTrail, type AuditTrail } from './audit-log/audit-trail';
import { authRoutes } from './auth/auth.routes';
import { failedAuthLimit, publicLimit } from './client-limits';
import { confirmationRoutes } from '../public/confirmation.routes';
import { formsRoutes } from '../public/forms/forms.routes';
import { broadcastStatisticsRoutes } from './broadcasts/broadcast-statistics.routes';
import { broadcastsRoutes } from './broadcasts/broadcasts.routes';
import { dashboardRoutes } from './dashboard.routes';
import { discoveryRoutes } from './discovery/discovery.routes';
import { channelDesignRoutes } from './channel/channel-design.routes';
import { channelSettingsRoutes } from './channel/channel-settings.routes';
import { recordTokenUse } from './token-use';
import { segmentsRoutes } from './segments/segments.routes';
import { sequencesRoutes } from './sequences/sequences.routes';
import { usersRoutes } from './users/users.routes';
import { optInFormsRoutes } from './opt-in-forms/opt-in-forms.routes';
import { emailServersRoutes } from './email-servers/email-servers.routes';
import { exportRoutes } from './export/export.routes';
import { errorHandler, notFound } from './error-handler';
import { healthRoutes } from './health.routes';
import { inboundRoutes } from './inbound/inbound.routes';
import { apiMetrics } from './metrics';
import { rateLimit } from './rate-limit';
import { requestLog } from './request-log';
import { rejectUnstorableText } from './text-guard';
import { subscribersRoutes } from './subscribers/subscribers.routes';
import { suppressionsRoutes } from './suppressions/suppressions.routes';
import { templatesRoutes } from './templates/templates.routes';
import { topicsRoutes } from './topics/topics.routes';
import { transactionalsRoutes } from './transactionals/transactionals.routes';
import { trackingRoutes } from '../public/tracking.routes';
import { unsubscribeRoutes } from '../public/unsubscribe.routes';
import { archiveRoutes } from '../public/archive.routes';
import { preferencesRoutes } from '../public/preferences.routes';
import { webhookEndpointsRoutes } from './webhook-endpoints/webhook-endpoints.routes';
import { trustProxySetting } from './trusted-proxies';

export const JSON_BODY_LIMIT = '1mb';

/** The app's audit trail (docs/teams.md, "Audit log"): main.ts waits for it at shutdown, tests before reading the log. */
export function auditTrailOf(app: Express): AuditTrail {
  return app.locals.auditTrail as AuditTrail;
}

export function createApp(container: DependencyContainer): Express {
  const logger = container.resolve<Logger>(LoggerToken);
  const config = container.resolve<Config>(ConfigToken);
  const app = express();
  app.disable('x-powered-by');
  // X-Forwarded-For names the client only when the peer is a proxy the operator listed: from
  // anyone else it is whatever the caller wrote, and would split the per-address limits
  // (docs/security.md, "Per-address limits").
  app.set('trust proxy', trustProxySetting(config.trustedProxies));
  // Clients send tags[]=a&tags[]=b and custom_data[key]=value (docs/api-decisions.md): nested parsing.
  app.set('query parser', 'extended');

  // Security headers on every answer: the public pages (confirmation, unsubscribe, docs) are
  // opened in browsers; on JSON answers they cost nothing.
  app.use(helmet());
  app.use(requestLog(logger));
  const metrics = apiMetrics(container);
  app.use(metrics.middleware);
  app.use(healthRoutes(container));
  app.use(metrics.routes);
  // The document and its docs page are public: mounted before the authenticated /api/v1 router.
  app.use(docsRoutes());
  // Every authenticated write under /api/v1 and /auth is kept in the audit log once answered.
  const audit = auditTrail(container);
  app.locals.auditTrail = audit;
  app.use(['/api/v1', '/auth'], audit.middleware);
  // The API next, so its requests do not pass through the routers of the public pages below
  // (docs/write-path.md, "Per-request CPU"); none of those paths is under /api/v1.
  const api = express.Router();
  api.use(failedAuthLimit(authenticate(container), config.authFailuresPerMinute));
  api.use(rateLimit(container, config.rateLimitPerMinute));
  api.use(recordTokenUse(container));
  api.use(express.json({ limit: JSON_BODY_LIMIT }));
  api.use(rejectUnstorableText);
  api.use(actingChannel(container));
  api.use(broadcastsRoutes(container));
  api.use(subscribersRoutes(container));
  api.use(broadcastStatisticsRoutes(container));
  api.use(webhookEndpointsRoutes(container));
  api.use(suppressionsRoutes(container));
  api.use(templatesRoutes(container));
  api.use(transactionalsRoutes(container));
  api.use(discoveryRoutes(container));
  api.use(channelDesignRoutes(container));
  api.use(channelSettingsRoutes(container));
  api.use(segmentsRoutes(container));
  api.use(sequencesRoutes(container));
  api.use(optInFormsRoutes(container));
  api.use(emailServersRoutes(container));
  api.use(topicsRoutes(container));
  api.use(auditLogRoutes(container));
  api.use(usersRoutes(container));
  app.use('/api/v1', api);
  // Opt-in forms' hosted pages, embed script, views and submissions, with their own per-address
  // limits. Mounted at /f right after the API, so a sign-up does not walk the routers of the
  // pages below (docs/write-path.md, "Per-request CPU").
  app.use('/f', formsRoutes(container));
  // The dashboard's sign-in, sessions and password reset (docs/teams.md, Signing in).
  app.use('/auth', authRoutes(container));
  // The export (docs/export.md): the same authentication, limits and broadcast_channel_id as /api/v1.
  const migration = express.Router();
  migration.use(failedAuthLimit(authenticate(container), config.authFailuresPerMinute));
  migration.use(rateLimit(container, config.rateLimitPerMinute));
  migration.use(recordTokenUse(container));
  migration.use(actingChannel(container));
  migration.use(exportRoutes(container));
  app.use('/api/migration/v1', migration);
  // The web dashboard's static files: public like the docs; its calls carry the user's token.
  app.use(dashboardRoutes());
  // Public links in emails: no token, outside /api/v1.
  // Public routes and failed authentication are limited per client address (docs/security.md).
  app.use(['/t', '/u', '/confirm', '/inbound', '/preferences'], publicLimit());
  app.use(trackingRoutes(container));
  app.use(unsubscribeRoutes(container));
  app.use(preferencesRoutes(container));
  // Bounce and complaint receivers: no token, each checks its provider's signature.
  app.use(inboundRoutes(container));

  // Public pages for recipients (no token): double opt-in confirmation.
  app.use(confirmationRoutes(container));
  // The public archive and the recipients' web views (docs/archive.md).
  app.use(['/archive', '/w'], publicLimit());
  app.use(archiveRoutes(container));

  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}
