// tsyringe's decorators need the Reflect metadata polyfill before any use case is declared.
import 'reflect-metadata';

// Core's public names, by area: the ports and the use cases the apps, tests and benchmarks use.

// Errors, ports (interfaces, tokens, entity types) and job names.
export { AppError, ConflictError, ForbiddenError, NotFoundError, RateLimitedError, UnauthorizedError, ValidationError, type FieldErrors } from './errors';
export {
  BroadcastArchive,
  BroadcastRendering,
  SequenceRendering,
  type SequenceEmailFor,
  type SequenceStepJob,
  type SequenceStepRenderer,
  Clock,
  DkimKeyGenerator,
  EMAIL_SERVER_DEFAULTS,
  HtmlReader,
  JobQueue,
  Mailer,
  MessageWithdrawn,
  PriorityMailer,
  PublicLinks,
  RandomSource,
  RateLimitCounter,
  TurnstileVerifier,
  OptInFormStatistics,
  SubscriberHistoryReader,
  type HistoryEntry,
  type HistoryKind,
  type HistoryStatus,
  Timers,
  Repositories,
  RetentionPolicy,
  RetentionStore,
  SegmentRepository,
  SendEngine,
  SendRateStore,
  SmtpHostPolicy,
  SmtpProbe,
  Templates,
  Transactor,
  WebhookDestinations,
  WebhookRetrySchedule,
  WebhookSender,
  type ApiTokenRecord,
  type ApiTokenRepository,
  type AttemptFailure,
  type AttemptSuccess,
  type BounceNotification,
  type BounceRepository,
  type Broadcast,
  type BroadcastChanges,
  type BroadcastExpectation,
  type BroadcastLink,
  type BroadcastRepository,
  type Channel,
  type ChannelRepository,
  type ClaimedAttempt,
  type ClaimedRecipient,
  type ExcludedSegments,
  type ConfirmationTemplate,
  type ConfirmationTemplateRepository,
  type DeliveryJobRef,
  type DkimAlgorithm,
  type DkimKeyPair,
  type ClickContext,
  type ClickMark,
  type EmailEventKind,
  type EmailEventRecord,
  type EmailEvents,
  type EmailHeader,
  type EmailServer,
  type EmailServerChanges,
  type EmailServerRepository,
  type EventOutbox,
  type HtmlDocument,
  type IdempotencyClaim,
  type IdempotencyStore,
  type JobOptions,
  type JobRenderer,
  type Clearance,
  type MailOutcome,
  type NewBroadcast,
  type NewChannel,
  type NewEmailServer,
  type NewSegment,
  type Enrolment,
  type NewSequenceStep,
  type Sequence,
  type SequenceChanges,
  type SequenceCounts,
  type SequenceRepository,
  type SequenceEngagement,
  type TrackedSequenceEmail,
  SequenceRuntime,
  type DueEnrolment,
  type EnrolmentNext,
  type SequenceEmailOutcome,
  type StepEffect,
  type StepRecord,
  type SequenceSettings,
  type SequenceStep,
  type StepStatistics,
  type NewSubscriber,
  type NewSubscriberConfirmation,
  type NewTransactional,
  type NewWebhookEndpoint,
  type OutboxEvent,
  type OutcomeGroup,
  type OutgoingEmail,
  type Page,
  type RecipientLinks,
  type RecipientSettlement,
  type RecipientStore,
  type RecordedEvent,
  type RenderedEmail,
  type RenderingJob,
  type RetainedTable,
  type Segment,
  type SegmentChanges,
  type SendOutcomeCounts,
  type SendProgress,
  type SubjectTestStore,
  type SendRateChange,
  type SmtpCheck,
  type Subscriber,
  type SubscriberConfirmation,
  type SubscriberConfirmationRepository,
  type SubscriberFilter,
  type SubscriberRepository,
  type SubscriberSnapshot,
  type Suppression,
  type SuppressionList,
  type SuppressionRepository,
  type Template,
  type TemplateFields,
  type TemplatePurpose,
  type TemplateRepository,
  type TemplatePart,
  type TemplateScope,
  type TrackedRecipient,
  type Transactional,
  type TransactionalEvent,
  type TransactionalFilter,
  type TransactionalSummary,
  type TransactionalRepository,
  type WebhookDelivery,
  type WebhookDeliveryRepository,
  type WebhookDeliveryStatus,
  type WebhookEndpoint,
  type WebhookEndpointChanges,
  type WebhookEndpointRepository,
  type WebhookPost,
  type WebhookResult,
} from './ports';
export { QUEUES, RETIRED_QUEUES, SINGLETON_QUEUES, type JobName, type JobPayloads } from './jobs';

// Auth: API tokens and channels.
export { ActForChannel, CHANNEL_NOT_FOUND, CHANNEL_REQUIRED } from './auth/act-for-channel';
export {
  Authenticate,
  callerKey,
  GLOBAL_SUPPRESSIONS_ADMIN_ONLY,
  NO_CHANNEL,
  requireAction,
  requireAdmin,
  requirePermission,
  type Principal,
} from './auth/authenticate';
export { CreateApiToken, issueApiToken, type IssuedToken } from './auth/create-api-token';
export { RevokeApiToken } from './auth/revoke-api-token';
// Email servers.
export { EMAIL_SERVER_NOT_FOUND, SmtpAllowPlaintext } from './email-servers/email-server-rules';
export { AddEmailServer } from './email-servers/add-email-server';
export { ListEmailServers } from './email-servers/list-email-servers';
export { GetEmailServer } from './email-servers/get-email-server';
export { UpdateEmailServer } from './email-servers/update-email-server';
export { DeleteEmailServer } from './email-servers/delete-email-server';
export { TestEmailServerConnection } from './email-servers/test-email-server-connection';
export { GenerateDkimKey } from './email-servers/generate-dkim-key';
export { CopyEmailServer, CROSS_CHANNEL_ADMIN_ONLY, EmailServerCopier, SAME_CHANNEL_COPY } from './email-servers/copy-email-server';

// Request rate limits.
export { CheckRateLimit } from './limits/check-rate-limit';

// Subscribers and confirmations.
export { CreateSubscriber, type CreateSubscriberInput, type DoubleOptInOptions, type SubscriberFields } from './subscribers/create-subscriber';
export { UpdateSubscriber, type UpdateSubscriberInput } from './subscribers/update-subscriber';
export { FindSubscriber } from './subscribers/find-subscriber';
export { GetSubscriberHistory, HISTORY_PAGE_SIZE } from './subscribers/get-subscriber-history';
export { ListSubscribers } from './subscribers/list-subscribers';
export { PurgeFailedError, PurgeSubscribers, PURGE_BATCH_DEFAULT, PURGE_BATCH_MAX, SubscriberPurger } from './subscribers/purge-subscribers';
export { ActivateSubscriber } from './subscribers/activate-subscriber';
export { DeactivateSubscriber } from './subscribers/deactivate-subscriber';
export { UnsubscribeSubscriber } from './subscribers/unsubscribe-subscriber';
export { ResubscribeSubscriber } from './subscribers/resubscribe-subscriber';
export { AddSubscriberTags } from './subscribers/add-subscriber-tags';
export { RemoveSubscriberTags } from './subscribers/remove-subscriber-tags';
export { RedactSubscriber } from './subscribers/redact-subscriber';
export { ConfirmSubscription, type ConfirmationOutcome } from './subscribers/confirm-subscription';
// Opt-in form submissions (docs/opt-in-forms.md, "Submission processing").
export {
  SubmitOptInForm,
  FORM_CONFIRMATION_QUIET_MS,
  SUBMISSION_SHARDS,
  type OptInSubmission,
  type OptInSubmissionResult,
  type SubmittedForm,
} from './forms/submit-opt-in-form';
export { DEFAULT_WELCOME_TEMPLATE } from './forms/form-actions';
export type { FormSubmissionRepository, PendingFormActions, TakenFormActions, TopicStorage } from './ports';
export { UnsubscribeByConfirmationLink } from './subscribers/unsubscribe-by-confirmation-link';
export { SendConfirmationEmail } from './subscribers/send-confirmation-email';
export {
  checkImportHeader,
  ImportSubscribers,
  SubscriberImporter,
  type ImportedSubscriber,
  type ImportRecord,
  type ImportSummary,
} from './subscribers/import-subscribers';

// Broadcasts.
export { BROADCAST_NOT_FOUND, GetBroadcast } from './broadcasts/get-broadcast';
export { ListBroadcasts } from './broadcasts/list-broadcasts';
export { GetBroadcastProgress, type BroadcastProgress } from './broadcasts/get-broadcast-progress';
export type { BroadcastInput } from './broadcasts/broadcast-input';
export { CreateBroadcast } from './broadcasts/create-broadcast';
export { UpdateBroadcast } from './broadcasts/update-broadcast';
export { DeleteBroadcast } from './broadcasts/delete-broadcast';
export { SendBroadcast } from './broadcasts/send-broadcast';
export { ScheduleBroadcast } from './broadcasts/schedule-broadcast';
export { CancelSchedule } from './broadcasts/cancel-schedule';
export { PauseBroadcast } from './broadcasts/pause-broadcast';
export { ResumeBroadcast } from './broadcasts/resume-broadcast';
export { AbortBroadcast } from './broadcasts/abort-broadcast';
export { PreviewBroadcast } from './broadcasts/preview-broadcast';
export { ARCHIVE_FEED_SIZE, ARCHIVE_PAGE_SIZE, GetPublicArchive, type ArchivedCopy, type ArchivedItem, type PublicArchive } from './archive/get-public-archive';
export { GetWebView } from './archive/get-web-view';
export type { BrowserCopy } from './archive/archive-copy';
export { StartDueBroadcast } from './broadcasts/start-due-broadcast';
export { SweepDueBroadcasts } from './broadcasts/sweep-due-broadcasts';

// Statistics.
export {
  BroadcastStatisticsReader,
  STATISTICS_COUNTERS,
  type RecipientCounts,
  type StatisticsCounter,
  type TimelineQuery,
} from './statistics/broadcast-statistics-reader';
export { GetBroadcastStatistics } from './statistics/get-broadcast-statistics';
export { GetBroadcastTimeline, type BroadcastTimeline } from './statistics/get-broadcast-timeline';
export { GetBroadcastLinkStatistics, type BroadcastLinkStatistics } from './statistics/get-broadcast-link-statistics';

// Sending, tracking and unsubscribes.
export { defaultSendingOptions, SendingOptions } from './sending/sending-options';
export { BroadcastRenderer } from './sending/broadcast-renderer';
export { InProcessBroadcastRendering } from './sending/in-process-rendering';
export { QueueRecipients } from './sending/queue-recipients';
export { DeliverBroadcast } from './sending/deliver-broadcast';
export { DecideSubjectTest, subjectTestReport, type DecisionResult, type SubjectTestReport, type VariantReport } from './sending/subject-test';
export { RecoverStalledBroadcasts } from './sending/recover-stalled-broadcasts';
export { RecordOpen } from './sending/record-open';
export { RecordClick } from './sending/record-click';
export type { TrackingRequest } from './sending/tracked-recipient';
export { GetUnsubscribeTarget } from './sending/get-unsubscribe-target';
export { UnsubscribeByToken } from './sending/unsubscribe-by-token';

// Retention.
export { PruneOldRows } from './retention/prune-old-rows';
// Webhooks: endpoints, fan-out, attempts and retries.
export { WEBHOOK_ENDPOINT_NOT_FOUND } from './webhooks/webhook-endpoint-rules';
export { ListWebhookEndpoints } from './webhooks/list-webhook-endpoints';
export { GetWebhookEndpoint } from './webhooks/get-webhook-endpoint';
export { CreateWebhookEndpoint, type CreateWebhookEndpointInput } from './webhooks/create-webhook-endpoint';
export { UpdateWebhookEndpoint, type UpdateWebhookEndpointInput } from './webhooks/update-webhook-endpoint';
export { DeleteWebhookEndpoint } from './webhooks/delete-webhook-endpoint';
export { TestWebhookEndpoint } from './webhooks/test-webhook-endpoint';
export { ListWebhookDeliveries } from './webhooks/list-webhook-deliveries';
export { FanOutEvents } from './webhooks/fan-out-events';
export { ClaimWebhookAttempts } from './webhooks/claim-webhook-attempts';
export { isSuccess, SendWebhookAttempt, webhookBody, type AttemptOutcome } from './webhooks/send-webhook-attempt';
export { RecordWebhookSuccesses } from './webhooks/record-webhook-successes';
export { RecordWebhookFailure } from './webhooks/record-webhook-failure';
export { RequeueStalledDeliveries } from './webhooks/requeue-stalled-deliveries';
export { ExtendWebhookAttemptLeases } from './webhooks/extend-webhook-attempt-leases';
export { RequeueLapsedAttempts } from './webhooks/requeue-lapsed-attempts';

// Discovery.
export {
  DescribeCaller,
  permissionMap,
  type CallerDescription,
  type CallerType,
  type DescribedChannel,
  type DescribedToken,
} from './discovery/describe-caller';
export { GetChannelStatus, type ChannelStatus } from './discovery/get-channel-status';
export { GetChannelDesign, SetChannelDesign } from './discovery/channel-design';
export { RecordTokenUse } from './discovery/record-token-use';
export { UserIdentities, type ApiTokenDetails } from './ports';

// Segments.
export { SEGMENT_NOT_FOUND, segmentTooSlow, type SegmentFields } from './segments/segment-rules';
export { CreateSegment } from './segments/create-segment';
export { UpdateSegment } from './segments/update-segment';
export { DeleteSegment } from './segments/delete-segment';
export { ListSegments } from './segments/list-segments';
export { GetSegment, SEGMENT_PAGE_SIZE } from './segments/get-segment';
export { CountSegmentRules } from './segments/count-segment-rules';
// Sequences: their own barrel (packages/core/src/sequences/index.ts).
export * from './sequences/index';

// Suppressions.
export { ListSuppressions } from './suppressions/list-suppressions';
export { AddSuppression } from './suppressions/add-suppression';
export { RemoveSuppression } from './suppressions/remove-suppression';
export { AddSuppressionsInBulk } from './suppressions/add-suppressions-in-bulk';
export { RemoveSuppressionsInBulk } from './suppressions/remove-suppressions-in-bulk';
export { CheckSuppression } from './suppressions/check-suppression';

// Templates.
export type { TemplateInput } from './templates/template-input';
export { CreateTemplate } from './templates/create-template';
export { TEMPLATE_NOT_FOUND, UpdateTemplate } from './templates/update-template';
export { GetTemplate } from './templates/get-template';
export { ListTemplates } from './templates/list-templates';
export { DeleteTemplate } from './templates/delete-template';
export { PreviewTemplate, type PreviewTemplateInput, type TemplatePreview } from './templates/preview-template';
export { templateJson } from './templates/template-json';

// Transactionals.
export { CreateTransactional, type TransactionalInput } from './transactionals/create-transactional';
export { GetTransactional, TRANSACTIONAL_NOT_FOUND } from './transactionals/get-transactional';
export { ListTransactionals, ListTransactionalEvents } from './transactionals/list-transactionals';
export { SendTransactional } from './transactionals/send-transactional';
export { transactionalUnsubscribeUrl, withUnsubscribeLink } from './transactionals/unsubscribe-link';

// Bounces and complaints.
export { RecordBounce, type BounceReport, type BounceResult } from './bounces/record-bounce';
export { RecordNotification } from './bounces/record-notification';

// Opt-in forms: the public side's view counter.
export { RecordOptInFormView } from './forms/record-opt-in-form-view';

// Opt-in forms (docs/opt-in-forms.md).
export * from './ports/entities/opt-in-form';
export { OptInFormRepository } from './ports/opt-in-forms';
export {
  deepMerge,
  groupsToJson,
  settingsFromJson,
  settingsToJson,
  SETTINGS_GROUPS,
  type SettingsGroup,
  type SettingsJson,
} from './opt-in-forms/form-settings';
export {
  BLOCK_DEFAULTS,
  DEFAULT_BUTTON_LABEL,
  OPT_IN_FORM_NOT_FOUND,
  type BlockAttributesInput,
  type BlockInput,
  type BlockListInput,
  type OptInFormInput,
} from './opt-in-forms/form-rules';
export { CreateOptInForm, UpdateOptInForm } from './opt-in-forms/save-opt-in-form';
export { DeleteOptInForm, GetOptInForm, ListOptInForms, OPT_IN_FORMS_PAGE_SIZE, type OptInFormView } from './opt-in-forms/opt-in-form-views';
export { CreateFormVariant, DuplicateOptInForm } from './opt-in-forms/form-variants';
export { conversionRate, GetFormAnalytics, type FormAnalytics, type FormFigures } from './opt-in-forms/form-analytics';

// Topics and the preference page.
export { checkedTopic, TOPIC_NOT_FOUND, type TopicInput } from './topics/topic-rules';
export { CreateTopic } from './topics/create-topic';
export { UpdateTopic } from './topics/update-topic';
export { DeleteTopic } from './topics/delete-topic';
export { ChannelTopics, GetTopic, ListTopics } from './topics/get-topic';
export { GetPreferences, preferencesUrl, SavePreferences, type PreferencesView } from './topics/preferences';
export type { Topic, TopicChanges, TopicCounts, TopicRepository, TopicSettings, TopicUsage } from './ports';

// Teams: signing in, users, two-factor, OpenID Connect, the audit log and the export (docs/teams.md).
export * from './teams';

// The reputation guard and the channel settings API (docs/reputation-guard.md).
export { GetChannelSettings, UpdateChannelSettings, type ChannelSettings, type ChannelSettingsWrite } from './reputation/channel-settings';
export { ReputationGuard, SERVER_WINDOW_MS, type GuardOutcome } from './reputation/reputation-guard';
export { SequenceStepGuard } from './reputation/sequence-step-guard';
export { ReputationStore, StepReputationStore, type ChannelSettingsChanges, type Standing, type StepStanding, type StoredChannelSettings } from './ports';
