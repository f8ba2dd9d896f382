import type {
  ApiTokenRecord,
  ApiTokenRepository,
  Broadcast,
  BroadcastRepository,
  Channel,
  ChannelRepository,
  Clock,
  EmailServer,
  EmailServerRepository,
  EventOutbox,
  JobQueue,
  NewBroadcast,
  NewChannel,
  NewEmailServer,
  OutboxEvent,
  Page,
  RandomSource,
  RecordedEvent,
  Repositories,
  Transactor,
} from '../ports';
import type { Permission } from '@mailcast/domain';
import { FakeWebhookDeliveries, FakeWebhookEndpoints } from './webhook-fakes';

/** Hand-written in-memory ports for use-case tests (STYLE: Tests). */
export class FakeChannels implements ChannelRepository {
  readonly rows: Channel[] = [];
  async create(channel: NewChannel): Promise<Channel> {
    const row: Channel = {
      id: this.rows.length + 1,
      name: channel.name,
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
  async count(): Promise<number> {
    return this.rows.length;
  }
}

export class FakeApiTokens implements ApiTokenRepository {
  readonly rows: Array<ApiTokenRecord & { hash: Uint8Array; prefix: string }> = [];
  async create(token: { channelId: number; hash: Uint8Array; prefix: string; permissions: Permission[] }) {
    const row = { id: this.rows.length + 1, revokedAt: null, ...token };
    this.rows.push(row);
    return { id: row.id, channelId: row.channelId, permissions: row.permissions, revokedAt: null };
  }
  async findByHash(hash: Uint8Array) {
    return this.rows.find((r) => Buffer.from(r.hash).equals(Buffer.from(hash))) ?? null;
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
    const row = { id: this.rows.length + 1, ...server };
    this.rows.push(row);
    return row;
  }
  async listForChannel(channelId: number): Promise<EmailServer[]> {
    return this.rows.filter((s) => s.channelId === channelId);
  }
}

export class FakeBroadcasts implements BroadcastRepository {
  readonly rows: Broadcast[] = [];
  async create(broadcast: NewBroadcast, now: Date): Promise<Broadcast> {
    const row: Broadcast = {
      ...broadcast,
      id: this.rows.length + 1,
      status: 'draft',
      totalRecipients: 0,
      broadcastRecipientsCount: 0,
      beginSendAt: null,
      sentAt: null,
      version: 0,
      createdAt: now,
      updatedAt: now,
    };
    this.rows.push(row);
    return row;
  }
  async findById(channelId: number, id: number): Promise<Broadcast | null> {
    return this.rows.find((b) => b.channelId === channelId && b.id === id) ?? null;
  }
  async list(channelId: number, page: Page) {
    const mine = this.rows.filter((b) => b.channelId === channelId).reverse();
    return { items: mine.slice(page.offset, page.offset + page.limit), total: mine.length };
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

export function fakeRepositories(): Repositories & {
  channels: FakeChannels;
  apiTokens: FakeApiTokens;
  emailServers: FakeEmailServers;
  broadcasts: FakeBroadcasts;
  outbox: FakeOutbox;
  jobs: FakeJobs;
  webhookEndpoints: FakeWebhookEndpoints;
  webhookDeliveries: FakeWebhookDeliveries;
} {
  return {
    channels: new FakeChannels(),
    apiTokens: new FakeApiTokens(),
    emailServers: new FakeEmailServers(),
    broadcasts: new FakeBroadcasts(),
    outbox: new FakeOutbox(),
    jobs: new FakeJobs(),
    webhookEndpoints: new FakeWebhookEndpoints(),
    webhookDeliveries: new FakeWebhookDeliveries(),
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
