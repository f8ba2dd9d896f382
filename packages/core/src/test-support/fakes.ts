import { channelSlug, type BrandKitPatch } from '@mailcast/domain';
import type {
  BounceRepository,
  SequenceRepository,
  OptInFormRepository,
  TopicRepository,
  SubjectTestStore,
  ApiTokenRecord,
  ApiTokenRepository,
  Channel,
  ChannelRepository,
  Clock,
  ConfirmationTemplate,
  ConfirmationTemplateRepository,
  EmailServer,
  EmailServerChanges,
  EmailServerRepository,
  EventOutbox,
  JobQueue,
  NewChannel,
  NewEmailServer,
  OutboxEvent,
  RandomSource,
  RecordedEvent,
  EmailEventRecord,
  EmailEvents,
  Repositories,
  Transactor,
} from '../ports';
import { EMAIL_SERVER_DEFAULTS, type Mailer, type SendEngine } from '../ports';
import { SendEngine as Engine } from '@mailcast/send-engine';
import { FakeRecipientStore } from '../sending/test-support/fake-recipient-store';
import { FakeBroadcasts } from './broadcast-fakes';
import { FakeWebhookDeliveries, FakeWebhookEndpoints } from './webhook-fakes';
import { FakeSuppressions } from './suppression-fakes';
import { FakeTemplates } from './template-fakes';
import { FakeIdempotency, FakeTransactionals } from './transactional-fakes';
import { FakeSubscriberConfirmations, FakeSubscribers } from './subscriber-fakes';
import { FakeFormSubmissions } from './form-submission-fakes';

export { FakeBroadcasts } from './broadcast-fakes';

/** Hand-written in-memory ports for use-case tests (docs/contributing.md). */
export class FakeChannels implements ChannelRepository {
  readonly rows: Channel[] = [];
  async create(channel: NewChannel): Promise<Channel> {
    const row: Channel = {
      id: this.rows.length + 1,
      name: channel.name,
      slug: channelSlug(channel.name),
      fromEmail: channel.fromEmail ?? null,
      fromName: channel.fromName ?? null,
      trackOpens: true,
      trackClicks: true,
      createdAt: new Date(0),
    };
    this.rows.push(row);
    return row;
  }
  async findById(id: number): Promise<Channel | null> {
    return this.rows.find((c) => c.id === id) ?? null;
  }
  async findBySlug(slug: string): Promise<Channel | null> {
    return this.rows.find((c) => c.slug === slug) ?? null;
  }
  async count(): Promise<number> {
    return this.rows.length;
  }
  readonly designs = new Map<number, BrandKitPatch>();
  async findDesign(id: number): Promise<BrandKitPatch | null> {
    return this.rows.some((c) => c.id === id) ? (this.designs.get(id) ?? {}) : null;
  }
  async saveDesign(id: number, design: BrandKitPatch): Promise<boolean> {
    if (!this.rows.some((c) => c.id === id)) return false;
    this.designs.set(id, design);
    return true;
  }
}

export class FakeApiTokens implements ApiTokenRepository {
  readonly rows: Array<ApiTokenRecord & { hash: Uint8Array; prefix: string; suffix: string | null; lastUsedAt: Date | null }> = [];
  async create(token: Parameters<ApiTokenRepository['create']>[0]): Promise<ApiTokenRecord> {
    const row = { id: this.rows.length + 1, revokedAt: null, lastUsedAt: null, ...token };
    this.rows.push(row);
    return { id: row.id, channelId: row.channelId, type: row.type, label: row.label, permissions: row.permissions, revokedAt: null };
  }
  async findByHash(hash: Uint8Array) {
    return this.rows.find((r) => Buffer.from(r.hash).equals(Buffer.from(hash))) ?? null;
  }
  async findById(id: number) {
    const row = this.rows.find((r) => r.id === id);
    if (row === undefined) return null;
    const { hash: _hash, ...details } = row;
    return { ...details };
  }
  async markUsed(id: number, at: Date): Promise<void> {
    const row = this.rows.find((r) => r.id === id);
    if (row && (row.lastUsedAt === null || at.getTime() - row.lastUsedAt.getTime() >= 60_000)) row.lastUsedAt = at;
  }
  async revoke(id: number, at: Date): Promise<boolean> {
    const row = this.rows.find((r) => r.id === id);
    if (row && row.revokedAt === null) row.revokedAt = at;
    return row !== undefined;
  }
}

export class FakeEmailServers implements EmailServerRepository {
  readonly rows: EmailServer[] = [];
  async create(server: NewEmailServer): Promise<EmailServer> {
    const row: EmailServer = {
      ...EMAIL_SERVER_DEFAULTS,
      createdAt: new Date(0),
      updatedAt: new Date(0),
      ...server,
      id: this.rows.length + 1,
    };
    this.rows.push(row);
    return row;
  }
  async listForChannel(channelId: number): Promise<EmailServer[]> {
    return this.rows.filter((s) => s.channelId === channelId);
  }
  async findById(channelId: number, id: number): Promise<EmailServer | null> {
    return this.rows.find((s) => s.channelId === channelId && s.id === id) ?? null;
  }
  async update(channelId: number, id: number, changes: EmailServerChanges): Promise<EmailServer | null> {
    const row = await this.findById(channelId, id);
    if (row !== null) Object.assign(row, changes);
    return row;
  }
  async delete(channelId: number, id: number): Promise<boolean> {
    const index = this.rows.findIndex((s) => s.channelId === channelId && s.id === id);
    if (index >= 0) this.rows.splice(index, 1);
    return index >= 0;
  }
  async namedByPendingBroadcast(): Promise<boolean> {
    return false;
  }
}

export class FakeConfirmationTemplates implements ConfirmationTemplateRepository {
  readonly rows: ConfirmationTemplate[] = [];
  async create(t: Omit<ConfirmationTemplate, 'id'>): Promise<ConfirmationTemplate> {
    const row = { ...t, id: this.rows.length + 1 };
    this.rows.push(row);
    return row;
  }
  async findById(channelId: number, id: number): Promise<ConfirmationTemplate | null> {
    return this.rows.find((t) => t.channelId === channelId && t.id === id) ?? null;
  }
  async findDefault(channelId: number): Promise<ConfirmationTemplate | null> {
    return this.rows.find((t) => t.channelId === channelId && t.isDefault) ?? null;
  }
}

export class FakeOutbox implements EventOutbox {
  readonly events: RecordedEvent[] = [];
  async record(event: OutboxEvent): Promise<RecordedEvent> {
    const recorded = { ...event, id: this.events.length + 1 };
    this.events.push(recorded);
    return recorded;
  }
}

export class FakeEmailEvents implements EmailEvents {
  readonly events: Array<EmailEventRecord & { id: number }> = [];
  async recordMany(events: readonly EmailEventRecord[]): Promise<void> {
    for (const event of events) await this.record(event);
  }
  async record(event: EmailEventRecord): Promise<{ id: number; firstForRecipient: boolean }> {
    const firstForRecipient = !this.events.some(
      (e) =>
        e.broadcastId === event.broadcastId && e.recipientId === event.recipientId && e.kind === event.kind && (e.linkId ?? null) === (event.linkId ?? null),
    );
    const id = this.events.length + 1;
    this.events.push({ ...event, id });
    return { id, firstForRecipient };
  }
  async flagScannerClicks(_broadcastId: number, _recipientId: number, eventIds: readonly number[]): Promise<void> {
    for (const e of this.events) if (eventIds.includes(e.id)) Object.assign(e, { machine: true, machineReason: 'scanner' });
  }
}

export class FakeJobs implements JobQueue {
  readonly sent: Array<{ name: string; data: unknown; startAfter?: Date }> = [];
  async send(name: string, data: unknown, options: { startAfter?: Date } = {}): Promise<string> {
    this.sent.push({ name, data, ...options });
    return `job-${this.sent.length}`;
  }
  async sendMany(name: string, jobs: ReadonlyArray<{ data: unknown; options?: { startAfter?: Date } }>): Promise<void> {
    for (const job of jobs) await this.send(name, job.data, job.options);
  }
}

/** No unit test records bounces: they are tested against PostgreSQL. */
const unusedBounces: BounceRepository = new Proxy({} as BounceRepository, {
  get: () => () => Promise.reject(new Error('bounces are not faked')),
});

/** Sequences are tested against PostgreSQL; a template delete only asks whether a step uses it. */
const unusedSequences: SequenceRepository = new Proxy({} as SequenceRepository, {
  get: (_, name) => (name === 'usesTemplate' ? () => Promise.resolve(false) : () => Promise.reject(new Error('sequences are not faked'))),
});

const unusedSubjectTests: SubjectTestStore = new Proxy({} as SubjectTestStore, {
  get: () => () => Promise.reject(new Error('subject tests are not faked')),
});

/** No topics: a subscriber answer shows `topics: {}`; nothing else is faked. */
const noTopics: TopicRepository = new Proxy({} as TopicRepository, {
  get: (_, name) => (name === 'all' ? () => Promise.resolve([]) : () => Promise.reject(new Error('topics are not faked'))),
});

const unusedOptInForms: OptInFormRepository = new Proxy({} as OptInFormRepository, {
  get: () => () => Promise.reject(new Error('opt-in forms are not faked')),
});

export function fakeRepositories(): ReturnType<typeof unlinkedFakeRepositories> {
  const repositories = unlinkedFakeRepositories();
  repositories.subscribers.outbox = repositories.outbox;
  return repositories;
}

function unlinkedFakeRepositories(): Repositories & {
  channels: FakeChannels;
  apiTokens: FakeApiTokens;
  emailServers: FakeEmailServers;
  broadcasts: FakeBroadcasts;
  subscribers: FakeSubscribers;
  subscriberConfirmations: FakeSubscriberConfirmations;
  confirmationTemplates: FakeConfirmationTemplates;
  emailEvents: FakeEmailEvents;
  recipients: FakeRecipientStore;
  outbox: FakeOutbox;
  jobs: FakeJobs;
  webhookEndpoints: FakeWebhookEndpoints;
  webhookDeliveries: FakeWebhookDeliveries;
  suppressions: FakeSuppressions;
  templates: FakeTemplates;
  transactionals: FakeTransactionals;
  formSubmissions: FakeFormSubmissions;
  idempotency: FakeIdempotency;
  bounces: BounceRepository;
  sequences: SequenceRepository;
  optInForms: OptInFormRepository;
  topics: TopicRepository;
  subjectTests: SubjectTestStore;
} {
  const emailEvents = new FakeEmailEvents();
  return {
    channels: new FakeChannels(),
    apiTokens: new FakeApiTokens(),
    emailServers: new FakeEmailServers(),
    broadcasts: new FakeBroadcasts(),
    subscribers: new FakeSubscribers(),
    subscriberConfirmations: new FakeSubscriberConfirmations(),
    confirmationTemplates: new FakeConfirmationTemplates(),
    emailEvents,
    recipients: new FakeRecipientStore(emailEvents),
    outbox: new FakeOutbox(),
    jobs: new FakeJobs(),
    webhookEndpoints: new FakeWebhookEndpoints(),
    webhookDeliveries: new FakeWebhookDeliveries(),
    suppressions: new FakeSuppressions(),
    templates: new FakeTemplates(),
    transactionals: new FakeTransactionals(),
    formSubmissions: new FakeFormSubmissions(),
    idempotency: new FakeIdempotency(),
    bounces: unusedBounces,
    sequences: unusedSequences,
    optInForms: unusedOptInForms,
    topics: noTopics,
    subjectTests: unusedSubjectTests,
  };
}

/** Runs work directly on the fakes and counts the units of work. */
export class FakeTransactor implements Transactor {
  runs = 0;
  constructor(private readonly repositories: Repositories) {}
  async run<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    this.runs += 1;
    return work(this.repositories);
  }
}

export class FixedClock implements Clock {
  constructor(public current: Date) {}
  now(): Date {
    return this.current;
  }
}

/** Deterministic bytes: 0, 1, 2, … continuing across calls. */
export class CountingRandom implements RandomSource {
  private next = 0;
  bytes(length: number): Uint8Array {
    return Uint8Array.from({ length }, () => this.next++ % 256);
  }
}

/** A send engine over `mailer` (bulk and priority alike), Node's timers and an unlimited store. */
export function engineOver(mailer: Mailer): SendEngine {
  return new Engine({
    mailer,
    priorityMailer: mailer,
    rates: { change: () => Promise.reject(new Error('no server in these tests has sending limits')) },
    timers: {
      now: () => Date.now(),
      sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
      after: (ms, fn) => {
        const timer = setTimeout(fn, ms);
        return () => clearTimeout(timer);
      },
      every: (ms, fn) => {
        const timer = setInterval(fn, ms);
        return () => clearInterval(timer);
      },
    },
    random: { bytes: (length) => new Uint8Array(length) },
  });
}
