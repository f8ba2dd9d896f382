import type { BroadcastStatus, EventType, Permission } from '@mailcast/domain';
import type { WebhookDeliveryRepository, WebhookEndpointRepository } from './webhooks/webhook-ports';
import type { JobName, JobPayloads } from './jobs';
import type { RecipientStore } from './sending/recipient-store';

/*
 * Ports: what the use cases need from the world. Each DI token has the same name as the
 * interface it stands for, so `@inject(Clock) clock: Clock` reads as what it is.
 */

export interface Clock {
  now(): Date;
}
export const Clock = Symbol.for('mailcast.Clock');

export interface RandomSource {
  bytes(length: number): Uint8Array;
}
export const RandomSource = Symbol.for('mailcast.RandomSource');

export interface Page {
  limit: number;
  offset: number;
}

export interface Channel {
  id: number;
  name: string;
  fromEmail: string | null;
  fromName: string | null;
  trackOpens: boolean;
  trackClicks: boolean;
  createdAt: Date;
}

export interface NewChannel {
  name: string;
  fromEmail?: string | null;
  fromName?: string | null;
}

export interface ChannelRepository {
  create(channel: NewChannel): Promise<Channel>;
  findById(id: number): Promise<Channel | null>;
  count(): Promise<number>;
}

export interface ApiTokenRecord {
  id: number;
  channelId: number;
  permissions: Permission[];
  revokedAt: Date | null;
}

export interface ApiTokenRepository {
  create(token: { channelId: number; hash: Uint8Array; prefix: string; permissions: Permission[] }): Promise<ApiTokenRecord>;
  /** The token whose hash matches, revoked or not; the caller decides. */
  findByHash(hash: Uint8Array): Promise<(ApiTokenRecord & { hash: Uint8Array }) | null>;
  /** Returns false when no token has that id. Revoking twice keeps the first time. */
  revoke(id: number, at: Date): Promise<boolean>;
}

export interface EmailServer {
  id: number;
  channelId: number;
  host: string;
  port: number;
  secure: boolean;
  username: string | null;
  password: string | null;
  fromEmail: string | null;
  fromName: string | null;
  /** Sending limits for every dispatcher together; null or absent: none (docs/sending-limits.md). */
  maxPerSecond?: number | null;
  maxPerMinute?: number | null;
  maxPerHour?: number | null;
  maxPerDay?: number | null;
}

export type NewEmailServer = Omit<EmailServer, 'id'>;

export interface EmailServerRepository {
  create(server: NewEmailServer): Promise<EmailServer>;
  listForChannel(channelId: number): Promise<EmailServer[]>;
}

export interface EmailHeader {
  key: string;
  value: string;
}

export interface Broadcast {
  id: number;
  channelId: number;
  name: string | null;
  subject: string;
  preheader: string | null;
  body: string | null;
  htmlBody: string | null;
  includeUnsubscribeLink: boolean;
  replyTo: string | null;
  status: BroadcastStatus;
  trackOpens: boolean;
  trackClicks: boolean;
  useAnyEmailServer: boolean;
  emailHeaders: EmailHeader[];
  tags: string[];
  segmentIds: number[];
  emailServerIds: number[];
  totalRecipients: number;
  broadcastRecipientsCount: number;
  scheduledSendAt: Date | null;
  scheduledTimezone: string | null;
  beginSendAt: Date | null;
  sentAt: Date | null;
  /** The stage a paused broadcast was paused in, so resume returns there; null unless paused. */
  pausedFrom: BroadcastStatus | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export type NewBroadcast = Omit<
  Broadcast,
  | 'id'
  | 'status'
  | 'totalRecipients'
  | 'broadcastRecipientsCount'
  | 'beginSendAt'
  | 'sentAt'
  | 'pausedFrom'
  | 'version'
  | 'createdAt'
  | 'updatedAt'
>;

/** What an edit or a status change may write; every write bumps `version`. */
export type BroadcastChanges = Partial<
  Omit<NewBroadcast, 'channelId'> & Pick<Broadcast, 'status' | 'pausedFrom' | 'sentAt'>
>;

/**
 * The state a conditional write expects. The write happens only if the row still matches, so
 * two concurrent transitions cannot both succeed and a stale job cannot act.
 */
export interface BroadcastExpectation {
  statuses: readonly BroadcastStatus[];
  version: number;
  /** Only when scheduled_send_at is at or before this instant (a due scheduled broadcast). */
  dueBy?: Date;
}

export interface BroadcastRepository {
  create(broadcast: NewBroadcast, now: Date): Promise<Broadcast>;
  /** Scoped to the channel: another channel's broadcast is null, as if it did not exist. */
  findById(channelId: number, id: number): Promise<Broadcast | null>;
  /** Most recently created first (spec: List). */
  list(channelId: number, page: Page): Promise<{ items: Broadcast[]; total: number }>;
  /** Like findById, and holds the row until the transaction ends, so checks and write agree. */
  lock(channelId: number, id: number): Promise<Broadcast | null>;
  /** For job handlers, which carry only an id. */
  findByIdInAnyChannel(id: number): Promise<Broadcast | null>;
  /** Writes only if the row matches `expected`; bumps version. Null when it did not match. */
  update(id: number, expected: BroadcastExpectation, changes: BroadcastChanges, now: Date): Promise<Broadcast | null>;
  /** Deletes only in one of `statuses`; false when nothing was deleted. */
  delete(channelId: number, id: number, statuses: readonly BroadcastStatus[]): Promise<boolean>;
  /**
   * Moves up to `limit` future_scheduled broadcasts due by `now` to scheduled (version bumped),
   * skipping rows another transaction holds, so several dispatchers move each one exactly once.
   */
  startDue(now: Date, limit: number): Promise<Broadcast[]>;
  /** The ids among `segmentIds` that are not segments of the channel. */
  unknownSegmentIds(channelId: number, segmentIds: readonly number[]): Promise<number[]>;
  /**
   * Before a failed broadcast is sent again: recipients whose email failed go back to pending
   * (keeping their Message-ID); those sent, bounced or skipped stay as they are, so nobody
   * receives it twice. The processed count is recomputed to match.
   */
  prepareRetry(id: number): Promise<void>;
}

export interface Subscriber {
  id: number;
  channelId: number;
  /** Normalised (trimmed, lower-cased): CONTRACT §Subscribers. */
  email: string;
  firstName: string | null;
  lastName: string | null;
  ipAddress: string | null;
  isActive: boolean;
  source: string;
  subscribedAt: Date;
  unsubscribedAt: Date | null;
  confirmedAt: Date | null;
  /** Created through double opt-in: no broadcast until confirmed (CONTRACT §Subscribers). */
  requiresConfirmation: boolean;
  redactedAt: Date | null;
  tags: string[];
  customData: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export type NewSubscriber = Pick<Subscriber, 'channelId' | 'email' | 'requiresConfirmation'> &
  Partial<Pick<Subscriber, 'firstName' | 'lastName' | 'ipAddress' | 'source' | 'subscribedAt' | 'tags' | 'customData'>>;

/** The spec's list filters, already parsed; every one is optional and they combine with AND. */
export interface SubscriberFilter {
  isActive?: boolean;
  source?: string;
  /** Partial, case-insensitive match anywhere in the address. */
  emailContains?: string;
  confirmationStatus?: 'confirmed' | 'unconfirmed';
  /** Inclusive bounds. */
  createdAfter?: Date;
  createdBefore?: Date;
  /** All of them (AND). */
  tags?: string[];
  /** JSON containment. */
  customData?: Record<string, string | number | boolean>;
}

export interface SubscriberRepository {
  /**
   * Inserts the subscriber unless its address already exists in the channel (one upsert on the
   * unique key, never check-then-insert); null means it exists.
   */
  insertIfAbsent(subscriber: NewSubscriber, now: Date): Promise<Subscriber | null>;
  /** By exact normalised address; `forUpdate` locks the row for the rest of the transaction. */
  findByEmail(channelId: number, email: string, options?: { forUpdate?: boolean }): Promise<Subscriber | null>;
  findById(channelId: number, id: number, options?: { forUpdate?: boolean }): Promise<Subscriber | null>;
  /** Writes every mutable field; an address taken by another subscriber is a ValidationError on email. */
  save(subscriber: Subscriber, now: Date): Promise<Subscriber>;
  /** Most recently created first. */
  list(channelId: number, filter: SubscriberFilter, page: Page): Promise<{ items: Subscriber[]; total: number }>;
}

export interface ConfirmationTemplate {
  id: number;
  channelId: number;
  name: string;
  subject: string;
  body: string;
  isDefault: boolean;
}

export interface ConfirmationTemplateRepository {
  create(template: Omit<ConfirmationTemplate, 'id'>): Promise<ConfirmationTemplate>;
  findById(channelId: number, id: number): Promise<ConfirmationTemplate | null>;
  findDefault(channelId: number): Promise<ConfirmationTemplate | null>;
}

/** One double opt-in link. The token itself is never stored, only its hash. */
export interface SubscriberConfirmation {
  id: number;
  channelId: number;
  subscriberId: number;
  templateId: number | null;
  replyTo: string | null;
  includeUnsubscribeLink: boolean;
  createdAt: Date;
  emailSentAt: Date | null;
  confirmedAt: Date | null;
  supersededAt: Date | null;
}

export type NewSubscriberConfirmation = Pick<
  SubscriberConfirmation,
  'channelId' | 'subscriberId' | 'templateId' | 'replyTo' | 'includeUnsubscribeLink'
> & { tokenHash: Uint8Array };

export interface SubscriberConfirmationRepository {
  create(confirmation: NewSubscriberConfirmation, now: Date): Promise<SubscriberConfirmation>;
  findById(id: number): Promise<SubscriberConfirmation | null>;
  findByTokenHash(hash: Uint8Array): Promise<SubscriberConfirmation | null>;
  /** A newer request makes the subscriber's open links stale (schema: superseded_at). */
  supersedeOpen(subscriberId: number, now: Date): Promise<void>;
  markConfirmed(id: number, now: Date): Promise<void>;
  markEmailSent(id: number, now: Date): Promise<void>;
}

/** Public links written into emails and API answers (CONTRACT §1: PUBLIC_URL). */
export interface PublicLinks {
  confirmation(token: string): string;
  confirmationUnsubscribe(token: string): string;
}
export const PublicLinks = Symbol.for('mailcast.PublicLinks');

/** An event as the outbox stores it; the webhooks dispatcher wraps it in the spec's envelope. */
export interface OutboxEvent {
  channelId: number;
  type: EventType;
  data: Record<string, unknown>;
  createdAt: Date;
}

export interface RecordedEvent extends OutboxEvent {
  id: number;
}

/**
 * The transactional outbox. Only reachable through a unit of work, so an event is always
 * written in the transaction of the change that caused it (CONTRACT: Webhooks).
 */
export interface EventOutbox {
  record(event: OutboxEvent): Promise<RecordedEvent>;
}

export interface JobOptions {
  /** Run no earlier than this instant (pg-boss startAfter): time-exact work, not cron. */
  startAfter?: Date;
}

export interface JobQueue {
  /** Returns the job id. */
  send<Name extends JobName>(name: Name, data: JobPayloads[Name], options?: JobOptions): Promise<string>;
  /** Many jobs of one queue in one statement (a fan-out's deliveries). */
  sendMany<Name extends JobName>(name: Name, jobs: ReadonlyArray<{ data: JobPayloads[Name]; options?: JobOptions }>): Promise<void>;
}
export const JobQueue = Symbol.for('mailcast.JobQueue');

/**
 * What happened to one recipient's email, as the statistics count it. One row per occurrence:
 * `processed` handed to SMTP, `delivered` accepted (2xx), `delayed` temporary failure (4xx),
 * `bounced` permanent rejection (5xx), `failed` given up, `opened`, `clicked` (with a link),
 * `complained`, `unsubscribed` (through this broadcast's link or one-click header).
 */
export const EMAIL_EVENT_KINDS = [
  'processed',
  'delivered',
  'delayed',
  'bounced',
  'failed',
  'opened',
  'clicked',
  'complained',
  'unsubscribed',
] as const;
export type EmailEventKind = (typeof EMAIL_EVENT_KINDS)[number];

export interface EmailEventRecord {
  channelId: number;
  broadcastId: number;
  recipientId: number;
  subscriberId: number;
  kind: EmailEventKind;
  /** The broadcast_links row clicked; only for `clicked`. */
  linkId?: number | null;
  occurredAt: Date;
  data?: Record<string, unknown>;
}

/**
 * Records recipient email events for the statistics. The recorder also keeps whatever
 * aggregates the statistics read (so they never scan events), in the same transaction.
 */
export interface EmailEvents {
  /** `firstForRecipient`: no earlier event of this kind (and link, for clicks) for the recipient. */
  record(event: EmailEventRecord): Promise<{ id: number; firstForRecipient: boolean }>;
  /**
   * Many events in one statement, for the sending pipeline's group commits. Whatever `record`
   * maintains besides the rows (aggregates), this maintains too.
   */
  recordMany(events: readonly EmailEventRecord[]): Promise<void>;
}

/** Every repository, bound to one transaction. */
export interface Repositories {
  channels: ChannelRepository;
  apiTokens: ApiTokenRepository;
  emailServers: EmailServerRepository;
  broadcasts: BroadcastRepository;
  subscribers: SubscriberRepository;
  subscriberConfirmations: SubscriberConfirmationRepository;
  confirmationTemplates: ConfirmationTemplateRepository;
  emailEvents: EmailEvents;
  /** The sending pipeline's recipients, links and tracking look-ups. */
  recipients: RecipientStore;
  outbox: EventOutbox;
  jobs: JobQueue;
  webhookEndpoints: WebhookEndpointRepository;
  webhookDeliveries: WebhookDeliveryRepository;
}
/** The same repositories outside any transaction, for reads. */
export const Repositories = Symbol.for('mailcast.Repositories');

/**
 * Runs work in one database transaction: the state change, the events it emits and the jobs
 * it triggers commit together or not at all (STYLE: Transactions and jobs).
 */
export interface Transactor {
  run<T>(work: (repositories: Repositories) => Promise<T>): Promise<T>;
}
export const Transactor = Symbol.for('mailcast.Transactor');

export interface MailAddress {
  email: string;
  name?: string | null;
}

export interface OutgoingEmail {
  /** Fixed per recipient before the first attempt: a resend after a crash keeps it. */
  messageId: string;
  from: MailAddress;
  to: string;
  replyTo?: string | null;
  subject: string;
  text: string;
  html?: string | null;
  headers?: Readonly<Record<string, string>>;
}

/** What the SMTP server said about one message (domain: smtpFailureKind decides permanence). */
export type MailOutcome =
  | { kind: 'accepted'; response: string }
  | { kind: 'rejected'; permanent: boolean; code: number | null; message: string };

export interface Mailer {
  /** Never throws for SMTP or connection failures: they are outcomes, told apart by permanence. */
  send(server: EmailServer, email: OutgoingEmail): Promise<MailOutcome>;
  close(): Promise<void>;
}
export const Mailer = Symbol.for('mailcast.Mailer');

export interface WebhookPost {
  url: string;
  /** Sent byte for byte as given: it is what the signature covers. */
  body: string;
  headers: Readonly<Record<string, string>>;
}

export type WebhookResult =
  | { kind: 'response'; status: number; body: string }
  | { kind: 'failed'; reason: 'timeout' | 'refused_destination' | 'network'; message: string };

export interface WebhookSender {
  /** Never throws for network trouble: a time-out or refusal is a result, retried per schedule. */
  post(request: WebhookPost): Promise<WebhookResult>;
}
export const WebhookSender = Symbol.for('mailcast.WebhookSender');

/** Whether a webhook URL may be registered: HTTPS and a public destination (CONTRACT: Webhooks). */
export interface WebhookDestinations {
  check(url: string): Promise<{ ok: true } | { ok: false; reason: string }>;
}
export const WebhookDestinations = Symbol.for('mailcast.WebhookDestinations');

/** Variables a template may read; plain data only (CONTRACT: Liquid). */
export type TemplateScope = Readonly<Record<string, unknown>>;

/**
 * Liquid templates (subject, body, html_body, confirmation emails), rendered sandboxed: no file
 * system, bounded time and memory.
 */
export interface Templates {
  /** null when the source is valid Liquid, else the parser's message (a 422 at create/update). */
  check(source: string): string | null;
  /** `html` escapes every output value for an HTML context; `text` leaves values as they are. */
  render(source: string, scope: TemplateScope, context: 'html' | 'text'): Promise<string>;
}
export const Templates = Symbol.for('mailcast.Templates');

/** Counts requests per token in fixed windows, shared by every api replica. */
export interface RateLimitCounter {
  /** Counts one request in the window starting at `windowStart`; returns the window's count. */
  hit(tokenId: number, windowStart: Date): Promise<number>;
}
export const RateLimitCounter = Symbol.for('mailcast.RateLimitCounter');
