// The adapters' public names, by area: what the apps, tests and benchmarks import.

// Configuration, logging, wiring and process lifecycle.
export { loadConfig, type Config } from './config';
export { createLogger, type Logger } from './logger';
export { composeContainer, ConfigToken, DatabaseToken, LoggerToken, SecretBoxToken, type Infrastructure, type Override } from './register';
export { openInfrastructure } from './infrastructure';
export { exitOnStartupError, onShutdown } from './process';

// PostgreSQL: the database, migrations, transactions and repositories.
export { createDatabase, type Database } from './pg/database';
export { loadDevkitPackage, resolveDatabase, type DevelopmentDatabase, type ResolvedDatabase } from './pg/resolve-database';
export { isDatabaseUnavailable, isStatementTimeout } from './pg/unavailable';
export { migrate, readiness, RENAMED_MIGRATIONS } from './pg/migrator';
export { channelScopeViolations, parseChannelScopeExceptions, unexcepted, type ChannelScopeException, type ChannelScopeViolation } from './pg/channel-scope';
export { pgRepositories, PgTransactor } from './pg/pg-transactor';
export { CachedApiTokenRepository, PgApiTokenRepository } from './pg/pg-api-token.repository';
export { CachedOptInFormRepository, OPT_IN_FORMS_CHANGED_CHANNEL } from './pg/cached-opt-in-form.repository';
export { PgEmailServerRepository } from './pg/pg-email-server.repository';
export { PgEmailEvents, rebuildEmailEventAggregates } from './pg/pg-email-events';
// The capacity bench writes through the product's own adapters (docs/capacity.md).
export { PgRecipientStore } from './pg/pg-recipient-store';
export { PgSubscriberImporter } from './pg/pg-subscriber-importer';
export { PgBroadcastStatisticsReader } from './pg/pg-broadcast-statistics-reader';
export { LIST_COUNT_TTL_MS, SubscriberLists, subscriberMatchesQuery, subscriberRowsQuery } from './pg/subscriber-list';
export { audienceChanges, CountCache, type ChangeCounter, type KeptCounts } from './pg/count-cache';
export { PgSegmentRepository, SEGMENT_COUNT_TTL_MS } from './pg/pg-segment.repository';
export { PgAuditLog } from './pg/pg-audit-log';
export { PgOptInFormRepository } from './pg/pg-opt-in-form.repository';
export { PgSignInPasswords, PgSignInUserRepository, PgUserSessionRepository } from './pg/pg-sign-in.repository';
export { Argon2PasswordHasher } from './secrets/argon2-password-hasher';
export { SmtpSystemMail, SystemMailUnavailable } from './mail/smtp-system-mail';
export { segmentPredicate } from './pg/segment-sql';
export { PgSequenceRuntime } from './pg/pg-sequence-runtime';

// The job queue (pg-boss) and its notifications.
export { createBoss } from './queue/boss';
export { listenForJobs, type JobListener } from './queue/job-notifications';
export { OUTBOX_WAKE } from './pg/outbox-wakeup';

// Clock and randomness.
export { CryptoRandom } from './system/crypto-random';
export { SystemClock } from './system/system-clock';
export { SystemTimers } from './system/system-timers';
export { DEFAULT_THREAD_YOUNG_GENERATION_MB, keepHeapFlags } from './system/threads';

// Mail: SMTP through nodemailer, on worker threads.
export { DEFAULT_CONNECTIONS_PER_SERVER, NodemailerMailer } from './mail/nodemailer-mailer';
export { composeMessage, nodemailerMessage } from './mail/compose';
export { ThreadedMailer } from './mail/threaded-mailer';
export { NodemailerSmtpProbe } from './mail/nodemailer-smtp-probe';
export { smtpAddressOptions, type SmtpAddressOptions } from './mail/smtp-destination';
export { ThreadedWebhookSender } from './http/threaded-webhook-sender';
export { GotTurnstileVerifier, TURNSTILE_SITEVERIFY_URL } from './http/got-turnstile-verifier';

// Templates: Liquid rendering (on threads), HTML reading, threaded broadcast rendering.
export { LiquidTemplates } from './templates/liquid-templates';
export { DEFAULT_TEMPLATE_TIME_LIMIT_MS, ThreadedTemplates } from './templates/threaded-templates';
export { Htmlparser2Reader } from './templates/htmlparser2-reader';
export {
  DEFAULT_RENDER_HEAP_MB,
  DEFAULT_RENDER_THREADS,
  DEFAULT_RENDER_TIME_LIMIT_MS,
  ThreadedBroadcastRendering,
  type ThreadedRenderingOptions,
} from './templates/threaded-broadcast-rendering';

// Metrics (Prometheus).
export { createMetricsRegistry, type Registry } from './metrics/registry';
export { registerBusinessMetrics } from './metrics/business-metrics';
export { registerAgeMetrics } from './metrics/age-metrics';

// Secrets sealed at rest: keys, the secret box, resealing.
export { SecretBox } from './secrets/secret-box';
export { secretBoxFor } from './secrets/secret-keys';
export { resealSecrets } from './secrets/reseal-secrets';

// Inbound bounce and complaint notifications: providers and DSNs.
export { InboundRefused } from './inbound/inbound-error';
export type { VerifiedNotification } from './inbound/verified-notification';
export { verifyMailgun } from './inbound/mailgun';
export { verifySendgrid } from './inbound/sendgrid';
export { verifyPostmark } from './inbound/postmark';
export { SnsReceiver, snsStringToSign } from './inbound/sns';
export { startDsnServer, type DsnServer } from './inbound/dsn-server';

// Two-factor sign-in (docs/teams.md).
export { OtplibTotp, QrcodeSvg, TOTP_ISSUER } from './two-factor/otplib-totp';
export { PgTwoFactorStore } from './two-factor/pg-two-factor-store';
export { OpenidClientOidc, type OidcSettings } from './oidc/openid-client-oidc';
