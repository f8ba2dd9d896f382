import {
  AuditLog,
  BroadcastStatisticsReader,
  Clock,
  DkimKeyGenerator,
  JobQueue,
  PublicLinks,
  BroadcastArchive,
  Mailer,
  PriorityMailer,
  RandomSource,
  RateLimitCounter,
  RetentionStore,
  SmtpAllowPlaintext,
  SmtpHostPolicy,
  SmtpProbe,
  Repositories,
  SendEngine,
  SendingOptions,
  SendRateStore,
  ReputationStore,
  StepReputationStore,
  SubscriberImporter,
  SubscriberPurger,
  EmailServerCopier,
  Timers,
  SegmentRepository,
  OptInFormRepository,
  SequenceRuntime,
  Templates,
  HtmlReader,
  Transactor,
  TurnstileVerifier,
  OptInFormStatistics,
  SubscriberHistoryReader,
  SignInPasswords,
  SignInUserRepository,
  SystemMail,
  UserSessionRepository,
  WebhookDestinations,
  WebhookRetrySchedule,
  WebhookSender,
  UserIdentities,
  DashboardLinks,
  PasswordResetStore,
  PasswordHasher,
  UserRepository,
  QrCodes,
  Totp,
  TwoFactorStore,
  OidcClient,
  ExportReader,
} from '@mailcast/core';
import type { Knex } from 'knex';
import type PgBoss from 'pg-boss';
import { container as rootContainer, instanceCachingFactory, type DependencyContainer, type InjectionToken } from 'tsyringe';
import { SendEngine as Engine } from '@mailcast/send-engine';
import type { Config } from './config';
import type { Logger } from './logger';
import { DnsWebhookDestinations, GotWebhookSender } from './http/got-webhook-sender';
import { ConfigPublicLinks } from './http/public-links';
import { ConfigDashboardLinks } from './http/dashboard-links';
import { PgPasswordResetStore } from './pg/pg-password-reset-store';
import { PgUserRepository } from './pg/pg-user.repository';
import { GotTurnstileVerifier } from './http/got-turnstile-verifier';
import { PgBroadcastStatisticsReader } from './pg/pg-broadcast-statistics-reader';
import { PgRateLimitCounter } from './pg/pg-rate-limit-counter';
import { PgOptInFormStatistics } from './pg/pg-opt-in-form-statistics';
import { PgSubscriberHistory } from './pg/pg-subscriber-history';
import { PgRetentionStore } from './pg/pg-retention-store';
import { PgAuditLog } from './pg/pg-audit-log';
import { PgSendRateStore } from './pg/pg-send-rate-store';
import { PgReputationStore } from './pg/pg-reputation-store';
import { PgStepReputationStore } from './pg/pg-step-reputation';
import { PgSubscriberImporter } from './pg/pg-subscriber-importer';
import { PgSubscriberPurger } from './pg/pg-subscriber-purger';
import { PgEmailServerCopier } from './pg/pg-email-server-copier';
import { PgBroadcastArchive } from './pg/pg-broadcast-archive';
import { PgSegmentRepository } from './pg/pg-segment.repository';
import { PgOptInFormRepository } from './pg/pg-opt-in-form.repository';
import { PgSequenceRuntime } from './pg/pg-sequence-runtime';
import { PgUserIdentities } from './pg/pg-user-identities';
import { PgExportReader } from './pg/pg-export-reader';
import { OutboxWakeup } from './pg/outbox-wakeup';
import { pgRepositories, PgTransactor } from './pg/pg-transactor';
import { PgBossJobQueue } from './queue/pg-boss-job-queue';
import { ThreadedTemplates } from './templates/threaded-templates';
import { Htmlparser2Reader } from './templates/htmlparser2-reader';
import { CryptoRandom } from './system/crypto-random';
import { SystemClock } from './system/system-clock';
import { SystemTimers } from './system/system-timers';
import type { SecretBox } from './secrets/secret-box';
import { secretBoxFor } from './secrets/secret-keys';
import { NodemailerSmtpProbe } from './mail/nodemailer-smtp-probe';
import { DnsSmtpHosts, smtpAddressOptions } from './mail/smtp-destination';
import { NodeDkimKeyGenerator } from './secrets/node-dkim-key-generator';
import { Argon2PasswordHasher } from './secrets/argon2-password-hasher';
import { SmtpSystemMail } from './mail/smtp-system-mail';
import { NodemailerMailer } from './mail/nodemailer-mailer';
import { PgSignInPasswords, PgSignInUserRepository, PgUserSessionRepository } from './pg/pg-sign-in.repository';
import { OtplibTotp, QrcodeSvg } from './two-factor/otplib-totp';
import { PgTwoFactorStore } from './two-factor/pg-two-factor-store';
import { OpenidClientOidc } from './oidc/openid-client-oidc';

/** Tokens for the infrastructure itself, which only composition roots and handlers touch. */
export const ConfigToken = Symbol.for('mailcast.Config');
export const LoggerToken = Symbol.for('mailcast.Logger');
export const DatabaseToken = Symbol.for('mailcast.Database');
export const BossToken = Symbol.for('mailcast.Boss');
export const SecretBoxToken = Symbol.for('mailcast.SecretBox');

export interface Infrastructure {
  config: Config;
  logger: Logger;
  db: Knex;
  boss: PgBoss;
  /** Seals secrets at rest; by default the one the configuration names (docs/secrets.md). */
  secrets?: SecretBox;
}

/** What an app's composition root changes in the shared bindings, so each port is bound once. */
export interface Composition {
  /** Wraps the PostgreSQL repositories before they are bound (the api's token cache). */
  repositories?: (base: Repositories, container: DependencyContainer) => Repositories;
}

/**
 * Binds every port the processes share to its PostgreSQL / pg-boss / system adapter. The mailer
 * and broadcast rendering are the dispatcher's alone: its composition root binds them, with
 * their threads and connections.
 */
export function registerAdapters(container: DependencyContainer, infra: Infrastructure, composition: Composition = {}): DependencyContainer {
  container.registerInstance(ConfigToken, infra.config);
  container.registerInstance(LoggerToken, infra.logger);
  container.registerInstance(DatabaseToken, infra.db);
  container.registerInstance(BossToken, infra.boss);
  const secrets = infra.secrets ?? secretBoxFor(infra.config, infra.logger);
  container.registerInstance(SecretBoxToken, secrets);
  container.registerInstance(Clock, new SystemClock());
  container.registerInstance(RandomSource, new CryptoRandom());
  container.registerInstance(Timers, new SystemTimers());
  // One engine per process, built on first use: the apps register the mailers it sends with.
  container.register(SendEngine, {
    useFactory: instanceCachingFactory(
      (c) =>
        new Engine({
          mailer: c.resolve<Mailer>(Mailer),
          priorityMailer: c.resolve<Mailer>(c.isRegistered(PriorityMailer, true) ? PriorityMailer : Mailer),
          rates: c.resolve<SendRateStore>(SendRateStore),
          timers: c.resolve<Timers>(Timers),
          random: c.resolve<RandomSource>(RandomSource),
          connections: c.isRegistered(SendingOptions, true) ? c.resolve<SendingOptions>(SendingOptions).smtpConnections : undefined,
        }),
    ),
  });
  // Events written outside a transaction commit with their statement: they wake the relays at once.
  const wakeup = new OutboxWakeup(infra.db);
  const repositories = pgRepositories(infra.db, infra.boss, secrets, () => wakeup.poke());
  container.registerInstance(Repositories, composition.repositories?.(repositories, container) ?? repositories);
  container.registerInstance(Transactor, new PgTransactor(infra.db, infra.boss, secrets, wakeup));
  container.registerInstance(JobQueue, new PgBossJobQueue(infra.boss));
  container.registerInstance(RateLimitCounter, new PgRateLimitCounter(infra.db));
  container.registerInstance(RetentionStore, new PgRetentionStore(infra.db));
  container.registerInstance(AuditLog, new PgAuditLog(infra.db));
  container.registerInstance(SendRateStore, new PgSendRateStore(infra.db));
  container.registerInstance(ReputationStore, new PgReputationStore(infra.db));
  container.registerInstance(StepReputationStore, new PgStepReputationStore(infra.db, () => wakeup.poke()));
  container.registerInstance(BroadcastStatisticsReader, new PgBroadcastStatisticsReader(infra.db));
  container.registerInstance(SubscriberImporter, new PgSubscriberImporter(infra.db));
  container.registerInstance(SubscriberPurger, new PgSubscriberPurger(infra.db));
  container.registerInstance(EmailServerCopier, new PgEmailServerCopier(infra.db, secrets));
  container.registerInstance(BroadcastArchive, new PgBroadcastArchive(infra.db));
  container.registerInstance(SegmentRepository, new PgSegmentRepository(infra.db, undefined, infra.config.segmentTimeoutMs));
  container.registerInstance(OptInFormRepository, new PgOptInFormRepository(infra.db));
  container.registerInstance(SequenceRuntime, new PgSequenceRuntime(infra.db, secrets, () => wakeup.poke()));
  container.registerInstance(PublicLinks, new ConfigPublicLinks(infra.config.publicUrl));
  // Channel Liquid never runs on the event loop: threads started with the first render, stopped
  // past the time limit, channels in turn (docs/templates.md "Rendering"). Closed by the app at stop.
  container.registerInstance(Templates, new ThreadedTemplates({ timeLimitMs: infra.config.templateTimeLimitMs }));
  container.registerInstance(HtmlReader, new Htmlparser2Reader());
  const webhookOptions = { timeoutMs: infra.config.webhookTimeoutMs, allowPrivate: infra.config.webhookAllowPrivate };
  container.registerInstance(WebhookSender, new GotWebhookSender(webhookOptions));
  container.registerInstance(WebhookDestinations, new DnsWebhookDestinations(webhookOptions));
  container.registerInstance(WebhookRetrySchedule, infra.config.webhookRetryScheduleMs);
  container.registerInstance(SmtpAllowPlaintext, infra.config.smtpAllowPlaintext);
  const smtpAddresses = smtpAddressOptions(infra.config);
  container.registerInstance(SmtpHostPolicy, new DnsSmtpHosts(smtpAddresses));
  container.registerInstance(SmtpProbe, new NodemailerSmtpProbe(smtpAddresses));
  container.registerInstance(DkimKeyGenerator, new NodeDkimKeyGenerator());
  container.registerInstance(TurnstileVerifier, new GotTurnstileVerifier(infra.config.turnstileSecretKey));
  container.registerInstance(OptInFormStatistics, new PgOptInFormStatistics(infra.db));
  container.registerInstance(SubscriberHistoryReader, new PgSubscriberHistory(infra.db));
  container.registerInstance(UserIdentities, new PgUserIdentities(infra.db));
  // Users (docs/teams.md): password resets and the dashboard's links; SystemMail is sign-in's.
  container.registerInstance(PasswordResetStore, new PgPasswordResetStore(infra.db));
  container.registerInstance(DashboardLinks, new ConfigDashboardLinks(infra.config.publicUrl));
  container.registerInstance(UserRepository, new PgUserRepository(infra.db));
  container.registerInstance(PasswordHasher, new Argon2PasswordHasher());
  // Signing in (docs/teams.md): users' credentials, sessions and reset links.
  container.registerInstance(SignInUserRepository, new PgSignInUserRepository(infra.db));
  container.registerInstance(UserSessionRepository, new PgUserSessionRepository(infra.db));
  container.registerInstance(SignInPasswords, new PgSignInPasswords(infra.db));
  container.registerInstance(SystemMail, new SmtpSystemMail(infra.db, secrets, () => new NodemailerMailer(smtpAddresses, 1), infra.config.systemFrom));
  // Two-factor sign-in (docs/teams.md, "Two-factor").
  container.registerInstance(TwoFactorStore, new PgTwoFactorStore(infra.db, secrets));
  container.registerInstance(Totp, new OtplibTotp());
  container.registerInstance(QrCodes, new QrcodeSvg());
  // OpenID Connect sign-in only when configured: the routes ask whether OidcClient is bound.
  if (infra.config.oidc !== undefined) {
    container.registerInstance(OidcClient, new OpenidClientOidc({ ...infra.config.oidc, redirectUri: `${infra.config.publicUrl}/auth/oidc/callback` }));
  }
  container.registerInstance(ExportReader, new PgExportReader(infra.db));
  return container;
}

export interface Override<T = unknown> {
  token: InjectionToken<T>;
  value: T;
}

/**
 * A child container with every adapter bound, then the overrides (a test's fixed clock, say)
 * on top. Each app's composition root starts from here and adds what is its own.
 */
export function composeContainer(infra: Infrastructure, overrides: readonly Override[] = [], composition: Composition = {}): DependencyContainer {
  const container = registerAdapters(rootContainer.createChildContainer(), infra, composition);
  for (const { token, value } of overrides) container.registerInstance(token, value);
  return container;
}
