// The domain's public names, by area: what the other packages and apps import.

// Errors a rule raises.
export { DomainError } from './errors';

// Auth: API tokens, permissions and rate limits.
export {
  ADMIN_ONLY_PERMISSIONS,
  apiTokenPrefix,
  CHANNEL_PERMISSIONS,
  formatApiToken,
  hashApiToken,
  isPermission,
  PERMISSIONS,
  timingSafeEqualBytes,
  type ApiTokenType,
  type Permission,
} from './api-token';
export { decideRateLimit, rateLimitWindowStart, type RateLimitDecision } from './rate-limit';
export { apiTokenSuffix, PLATFORM, redactedTokenValue, TOKEN_SUFFIX_LENGTH } from './discovery';

// Broadcasts: statuses, transitions and send plans.
export {
  assertCanDelete,
  assertCanSchedule,
  assertCanUpdate,
  BROADCAST_STATUSES,
  finalStatus,
  isValidTimezone,
  percentageComplete,
  planAbort,
  planCancelSchedule,
  planPause,
  planResume,
  planSchedule,
  planSend,
  resolveScheduledSendAt,
  type BroadcastStatus,
} from './broadcast';
export {
  pickWinner,
  samplePlan,
  subjectFor,
  SUBJECT_TEST_LIMITS,
  SUBJECT_TEST_METRICS,
  type SamplePlan,
  type SubjectTest,
  type SubjectTestMetric,
  type VariantFigures,
} from './subject-test';
export { recipientTimezone, scheduledStart, sendInstantsByTimezone, subscriberSendInstant, timezoneSendWindow } from './subscriber-timezone';

// The reputation guard (docs/reputation-guard.md).
export {
  checkReputationGuard,
  DEFAULT_REPUTATION_GUARD,
  reputationVerdict,
  resolveReputationGuard,
  type PauseReason,
  type ReputationCounts,
  type ReputationGuardSettings,
  type ReputationVerdict,
} from './reputation-guard';

// Subscribers, segments and suppressions.
export {
  activate,
  confirm,
  confirmationStatus,
  deactivate,
  decideCreate,
  formatConfirmationToken,
  hashConfirmationToken,
  isConfirmationTokenShape,
  canonicalEmail,
  isValidEmail,
  normalizeEmail,
  parseCustomDataFilterValue,
  redactionPatch,
  resubscribe,
  subscriberPagination,
  SUBSCRIBERS_PAGE_SIZE,
  totalFromPage,
  unsubscribe,
} from './subscriber';
export {
  MAX_SEGMENT_COST,
  parseSegmentDefinition,
  presentSegmentRule,
  referencedBroadcastIds,
  segmentCost,
  SEGMENT_FIELDS,
  SEGMENT_OPERATORS,
  type SegmentDefinition,
  type SegmentRule,
} from './segment';
export { SUPPRESSION_BULK_LIMIT, SUPPRESSION_REASONS, SUPPRESSIONS_PAGE_SIZE, type SuppressionReason, type SuppressionScope } from './suppression';

// Sending: content, senders, email servers, rates, retries, tracking, bounces, transactionals.
export { smtpFailureKind } from './smtp';
export {
  allowedCustomHeaders,
  editHtml,
  escapeHtml,
  isReservedHeader,
  isTrackableUrl,
  linkIdentifier,
  listUnsubscribeHeaders,
  MAX_RENDERED_BODY_LENGTH,
  preheaderHtml,
  renderedPartTooLong,
  subjectLine,
  textToHtml,
  unsubscribeFooterHtml,
  unsubscribeFooterText,
  type HtmlEdit,
} from './email-content';
export { DEFAULT_SEND_RETRY_SCHEDULE_MS, sendRetryDelayMs } from './send-retry';
export { isoInstant } from './iso-instant';
export {
  trackingToken,
  trackingTokenRecipient,
  transactionalTokenId,
  transactionalUnsubscribeToken,
  verifyTrackingToken,
  verifyTransactionalUnsubscribeToken,
  sequenceTokenIds,
  sequenceUnsubscribeToken,
  verifySequenceUnsubscribeToken,
  webViewToken,
  webViewTokenRecipient,
  verifyWebViewToken,
} from './tracking-token';
export { channelSlug, isChannelSlug, MAX_CHANNEL_SLUG } from './channel-slug';
export { HOLD_LEASE_MS, PERMIT_HOLD_MS, withHolds, type Holder, type HoldsByOwner, type SendHolds } from './send-permits';
export {
  adaptiveRate,
  FRESH_SEND_RATE_STATE,
  isRateBound,
  isThrottlingReply,
  LATE_SLOT_MS,
  pickServer,
  recordThrottle,
  reserveSlots,
  shortLaneRate,
  type SendLimits,
  type SendRateState,
} from './send-rate';
export {
  defaultSmtpTls,
  isRedactedPassword,
  isSmtpTls,
  movesConnection,
  REDACTED_PASSWORD,
  redactPassword,
  SMTP_TLS_MODES,
  type SmtpTls,
} from './email-server';
export { IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_TTL_MS, requestFingerprint, TRANSACTIONAL_STATUSES, type TransactionalStatus } from './transactional';
export { emailServerFor, senderAddress, usableEmailServers } from './sender';
export {
  dsnBounceKind,
  messageIdRecipient,
  normalizeMessageId,
  parseVerpAddress,
  providerHeaders,
  SOFT_BOUNCE_THRESHOLD,
  SOFT_BOUNCE_WINDOW_MS,
  verifyVerpToken,
  verpAddress,
  type BounceKind,
} from './bounce';

// Statistics: summaries, timelines and link reports.
export { summarizeStatistics, type CountAndRate, type StatisticsSummary } from './statistics';
export {
  buildSeries,
  parseMetrics,
  parseTimeframe,
  TIMEFRAMES,
  TIMELINE_METRIC_EVENTS,
  HUMAN_TIMELINE_METRICS,
  TIMELINE_METRICS,
  timelineWindow,
  type Timeframe,
  type TimelineEventKind,
  type TimelineSeries,
} from './timeline';
export { parseLinkQuery, sortLinks, toLinkItem, type LinkClickStats, type LinkItem } from './links';

// Events and webhooks: event types, signatures, retry schedules, secrets.
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  signedHeaders,
  verifyWebhook,
  WEBHOOK_HEADERS,
  type VerifyWebhookOptions,
  type VerifyWebhookResult,
} from './signature';
export { DEFAULT_RETRIES_TO_ATTEMPT, MAX_RETRIES_TO_ATTEMPT, nextAttempt, parseRetrySchedule } from './retry-schedule';
export { generateWebhookSecret, redactSecret } from './secret';
export {
  broadcastEventType,
  EVENT_TYPE_GROUPS,
  EVENT_TYPES,
  isEventType,
  type AttemptExhaustedEventData,
  type BroadcastEventData,
  type EmailEventData,
  type EventType,
  type PreferencesUpdatedEventData,
  type SubscriberEventData,
  type SubscribersPurgedEventData,
  type SubscribersPurgeFailedEventData,
  type WebhookEnvelope,
} from './events';

// Topics: where a topic's value lives and what a choice writes (docs/topics.md).
export {
  CUSTOM_DATA_KEY_PATTERN,
  MAX_TOPIC_NAME,
  receivesTopic,
  TOPIC_STORAGES,
  topicValue,
  withTopicChoice,
  type TopicChange,
  type TopicHolder,
  type TopicSource,
  type TopicStorage,
} from './topic';

// Sequences: the step tree, each action's fields, enrolments.
export { checkParent, defaultParent, deleteStep, insertStep, moveStep, SequenceTree, treeChanges, type StepNode } from './sequence-tree';
export {
  CONDITION_SETTINGS,
  CREATABLE_STEP_ACTIONS,
  HTTP_METHODS,
  MAX_STEP_DELAY_SECONDS,
  parseStepSettings,
  STEP_ACTIONS,
  STEP_FIELDS,
  type ConditionSetting,
  type StepAction,
  type StepFieldErrors,
  type StepSettings,
} from './sequence-step';
export {
  decideEnrol,
  ENDED_ENROLMENT_STATUSES,
  ENROLMENT_STATUSES,
  isEnrolmentStatus,
  LIVE_ENROLMENT_STATUSES,
  pauseTransition,
  SEQUENCE_ALREADY_COMPLETED,
  type EnrolDecision,
  type EnrolmentStatus,
  type SequenceEventData,
} from './sequence';
export {
  evaluateCondition,
  HTTP_STEP_RETRY_MS,
  httpStepVerdict,
  nextDayAt,
  nextStep,
  stepDueAt,
  type EngagementFacts,
  type HttpStepVerdict,
  type RuntimeStep,
} from './sequence-runtime';

// Brand kit: a channel's colours, typography, layout and links (docs/brand-kit.md).
export {
  BRAND_BOUNDS,
  BRAND_COLOR_KEYS,
  BRAND_FONTS,
  BRAND_KIT_DEFAULTS,
  checkBrandKit,
  FONT_STACKS,
  isBrandUrl,
  mergeBrandKit,
  resolveBrandKit,
  SOCIAL_ICON_STYLES,
  SOCIAL_NETWORKS,
  type BrandFont,
  type BrandKit,
  type BrandKitPatch,
} from './brand-kit';

// Opt-in forms: which variant a visitor sees.
export { chooseVariant, type WeightedForm } from './form-variant';

// Teams: what a user may do in a channel and over the installation (docs/teams.md).
export {
  apiPermissionsOf,
  CHANNEL_FLAGS,
  isChannelFlag,
  isSystemPermission,
  NO_FLAGS,
  ROLE_FLAGS,
  ROLES,
  roleOf,
  sameFlags,
  SYSTEM_PERMISSIONS,
  systemPermissionsOf,
  withImpliedReads,
  type ChannelFlag,
  type ChannelFlags,
  type Role,
  type SystemPermission,
  type SystemPermissions,
} from './user-permissions';
export { formatPasswordResetToken, hashPasswordResetToken, PASSWORD_RESET_TOKEN_BYTES, PASSWORD_RESET_TTL_MS, passwordResetUrl } from './password-reset';
export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordProblem } from './password';
export {
  csrfTokenFor,
  formatSessionSecret,
  hashSessionSecret,
  LOCKOUT_FAILURES,
  LOCKOUT_MS,
  LOCKOUT_WINDOW_MS,
  SESSION_IDLE_MS,
  SESSION_SECRET_BYTES,
  SESSION_TOUCH_EVERY_MS,
  sessionIsLive,
  SIGN_IN_ADDRESS_WINDOW_MS,
  SIGN_IN_FAILURES_PER_ADDRESS,
} from './user-session';

// Two-factor: recovery codes and the shape of a TOTP code (docs/teams.md).
export { hashRecoveryCode, normalizeRecoveryCode, RECOVERY_CODE_BYTES, RECOVERY_CODE_COUNT, recoveryCodeFrom, totpCodeOf } from './two-factor';

// Export (docs/export.md): collections, bounds and how secrets show.
export {
  EXPORT_COLLECTIONS,
  EXPORT_DAYS,
  EXPORT_FORMAT_VERSION,
  EXPORT_HISTORY_COLLECTIONS,
  EXPORT_PAGE,
  EXPORT_WEBHOOK_SECRET,
  historySince,
  isExportCollection,
  isExportHistoryCollection,
  parseExportDays,
  parseExportPage,
  REDACTED,
  type ExportCollection,
  type ExportHistoryCollection,
  type ExportParsed,
} from './export';

// Engagement truth: machine opens and clicks (docs/engagement.md).
export {
  classifyEngagement,
  isMailProxy,
  MACHINE_REASONS,
  machineAction,
  PREFETCH_WINDOW_MS,
  SCANNER_BURST_WINDOW_MS,
  SCANNER_DELIVERY_WINDOW_MS,
  type ActionRequest,
  type Classification,
  type EarlierClick,
  type EngagementRequest,
  type MachineReason,
} from './engagement';
