import type { BroadcastStatus, EventType, Permission } from '@mailcast/domain';
import type { WebhookDeliveryRepository, WebhookEndpointRepository } from './webhooks/webhook-ports';
import type { JobName, JobPayloads } from './jobs';

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
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export type NewBroadcast = Omit<
  Broadcast,
  'id' | 'status' | 'totalRecipients' | 'broadcastRecipientsCount' | 'beginSendAt' | 'sentAt' | 'version' | 'createdAt' | 'updatedAt'
>;

export interface BroadcastRepository {
  create(broadcast: NewBroadcast, now: Date): Promise<Broadcast>;
  /** Scoped to the channel: another channel's broadcast is null, as if it did not exist. */
  findById(channelId: number, id: number): Promise<Broadcast | null>;
  /** Most recently created first (spec: List). */
  list(channelId: number, page: Page): Promise<{ items: Broadcast[]; total: number }>;
}

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

/** Every repository, bound to one transaction. */
export interface Repositories {
  channels: ChannelRepository;
  apiTokens: ApiTokenRepository;
  emailServers: EmailServerRepository;
  broadcasts: BroadcastRepository;
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

/** Counts requests per token in fixed windows, shared by every api replica. */
export interface RateLimitCounter {
  /** Counts one request in the window starting at `windowStart`; returns the window's count. */
  hit(tokenId: number, windowStart: Date): Promise<number>;
}
export const RateLimitCounter = Symbol.for('mailcast.RateLimitCounter');
