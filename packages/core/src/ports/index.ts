/*
 * Ports: what the use cases need from the world, by area. Entity types (the records the ports
 * read and write) live in ./entities; each port's DI token sits beside its interface, with the
 * same name, so `@inject(Clock) clock: Clock` reads as what it is.
 */
export type { Page } from './entities/page';
export type { ApiTokenDetails, ApiTokenRecord, Channel, EmailServer, EmailServerChanges, NewChannel, NewEmailServer } from './entities/channel';
export { EMAIL_SERVER_DEFAULTS } from './entities/channel';
export type { Broadcast, BroadcastChanges, BroadcastExpectation, EmailHeader, NewBroadcast } from './entities/broadcast';
export type {
  ConfirmationTemplate,
  NewSubscriber,
  NewSubscriberConfirmation,
  Subscriber,
  SubscriberConfirmation,
  SubscriberFilter,
} from './entities/subscriber';
export type { Suppression, SuppressionList } from './entities/suppression';
export type { Template, TemplateFields, TemplatePurpose } from './entities/template';
export type { NewTransactional, Transactional, TransactionalEvent, TransactionalFilter, TransactionalSummary } from './entities/transactional';
export type { ClickContext, ClickMark, EmailEventKind, EmailEventRecord, OutboxEvent, RecordedEvent } from './entities/events';
export type { NewWebhookEndpoint, WebhookDelivery, WebhookDeliveryStatus, WebhookEndpoint, WebhookEndpointChanges } from './entities/webhook';

export { Clock, RandomSource, Timers } from './system';
export { SignInPasswords, SignInUserRepository, UserSessionRepository, type ChannelAccess, type SignInUser, type UserSession } from './sign-in';
export type { ApiTokenRepository, ChannelRepository, EmailServerRepository } from './channels';
export { DkimKeyGenerator, SmtpHostPolicy, SmtpProbe, type DkimAlgorithm, type DkimKeyPair, type SmtpCheck } from './email-servers';
export type { BroadcastRepository } from './broadcasts';
export type { BounceNotification, BounceRepository } from './bounces';
export { BroadcastArchive } from './archive';
export { PublicLinks, type ConfirmationTemplateRepository, type SubscriberConfirmationRepository, type SubscriberRepository } from './subscribers';
export type { EmailEvents, EventOutbox } from './events';
export { JobQueue, type JobOptions } from './jobs';
export type {
  BroadcastLink,
  ClaimedRecipient,
  OutcomeGroup,
  RecipientSettlement,
  RecipientStore,
  SendOutcomeCounts,
  SendProgress,
  SubscriberSnapshot,
  TrackedRecipient,
  ExcludedSegments,
} from './recipients';
export {
  WebhookDestinations,
  WebhookRetrySchedule,
  WebhookSender,
  type AttemptFailure,
  type AttemptSuccess,
  type ClaimedAttempt,
  type DeliveryJobRef,
  type WebhookDeliveryRepository,
  type WebhookEndpointRepository,
  type WebhookPost,
  type WebhookResult,
} from './webhooks';
export { Mailer, MessageWithdrawn, PriorityMailer, SendEngine, type Clearance, type MailAddress, type MailOutcome, type OutgoingEmail } from './mail';
export { HtmlReader, Templates, type HtmlDocument, type TemplatePart, type TemplateScope } from './templates';
export { BroadcastRendering, type JobRenderer, type RecipientLinks, type RenderedEmail, type RenderingJob } from './broadcast-rendering';
export { SequenceRendering, type SequenceEmailFor, type SequenceStepJob, type SequenceStepRenderer } from './sequence-rendering';
export { RateLimitCounter } from './rate-limits';
export { TurnstileVerifier } from './turnstile';
export { OptInFormStatistics } from './opt-in-form-statistics';
export { SubscriberHistoryReader, type HistoryEntry, type HistoryKind, type HistoryStatus } from './subscriber-history';
export type { SuppressionRepository } from './suppressions';
export type { TemplateRepository } from './templates-store';
export type { IdempotencyClaim, IdempotencyStore, TransactionalRepository } from './transactionals';
export type { FormSubmissionRepository, PendingFormActions, TakenFormActions, TopicStorage } from './form-submissions';
export { Repositories, Transactor } from './transactions';
export type { SubjectTestStore } from './subject-tests';
export { SendRateStore, type SendRateChange } from './send-rates';
export type { NewSegment, Segment, SegmentChanges } from './entities/segment';
export { SegmentRepository } from './segments';
export type {
  Enrolment,
  NewSequenceStep,
  Sequence,
  SequenceChanges,
  SequenceCounts,
  SequenceSettings,
  SequenceStep,
  StepStatistics,
} from './entities/sequence';
export type { SequenceEngagement, SequenceRepository, TrackedSequenceEmail } from './sequences';
export { SequenceRuntime, type DueEnrolment, type EnrolmentNext, type SequenceEmailOutcome, type StepEffect, type StepRecord } from './sequence-runtime';
export { RETAINED_TABLES, RetentionPolicy, RetentionStore, type RetainedTable } from './retention';
export { AuditLog, type AuditActorType, type AuditEntry, type AuditLogFilter, type NewAuditEntry } from './audit-log';
export {
  BLOCK_PLACEMENTS,
  BLOCK_TYPES,
  CUSTOM_FIELD_KEY,
  FORM_DEVICES,
  FORM_FREQUENCIES,
  FORM_TRIGGERS,
  FORM_TYPES,
  INPUT_VALUE_TYPES,
  OPT_IN_FORM_DEFAULTS,
  POST_SUBMISSION_BLOCK_TYPES,
  WIDGET_TYPES,
  type AutomationSettings,
  type BlockPlacement,
  type BlockType,
  type FormDevice,
  type FormFrequency,
  type FormSettings,
  type FormTrigger,
  type FormType,
  type InputValueType,
  type NewOptInForm,
  type OptInForm,
  type OptInFormAttributes,
  type OptInFormBlock,
  type OptInFormBlockFields,
  type OptInFormBlockWrite,
  type OptInFormChanges,
  type OptInFormCounters,
  type OptInFormDailyCounters,
  type OptInFormListFilter,
  type SecuritySettings,
  type ThemeSettings,
  type TriggerSettings,
  type WidgetSettings,
  type WidgetType,
} from './entities/opt-in-form';
export { OptInFormRepository } from './opt-in-forms';
export type { Topic, TopicChanges, TopicCounts, TopicSettings, TopicUsage } from './entities/topic';
export type { TopicRepository } from './topics';
export { UserIdentities } from './user-identities';
export { DashboardLinks, SystemMail, type SystemMessage } from './system-mail';
export { PasswordResetStore, type NewPasswordReset } from './password-resets';
export {
  EMAIL_TAKEN,
  PasswordHasher,
  UserRepository,
  type NewUser,
  type PermissionPreset,
  type User,
  type UserChanges,
  type UserChannelPermission,
  type UserFilter,
} from './users';
export { QrCodes, Totp, TwoFactorStore, type TwoFactorUser } from './two-factor';
export { OidcClient, OidcRefused, type OidcChecks, type OidcIdentity } from './oidc';
export { ExportReader, type ExportRecord, type ExportScope } from './export';
export { ReputationStore, StepReputationStore, type ChannelSettingsChanges, type Standing, type StepStanding, type StoredChannelSettings } from './reputation';
