import type {
  EventOutbox,
  NewSubscriber,
  NewSubscriberConfirmation,
  OutboxEvent,
  Page,
  Subscriber,
  SubscriberConfirmation,
  SubscriberConfirmationRepository,
  SubscriberFilter,
  SubscriberRepository,
} from '../ports';

/** In memory; list filters only what the use-case tests need (the real filters are SQL). */
export class FakeSubscribers implements SubscriberRepository {
  readonly rows: Subscriber[] = [];
  /** Where insertIfAbsentWithEvents records; fakeRepositories links it to its outbox. */
  outbox: EventOutbox | undefined;
  async insertIfAbsentWithEvents(s: NewSubscriber, now: Date, events: (row: Subscriber) => OutboxEvent[]): Promise<Subscriber | null> {
    const row = await this.insertIfAbsent(s, now);
    if (row === null) return null;
    if (this.outbox === undefined) throw new Error('FakeSubscribers has no outbox to record events in');
    for (const event of events({ ...row, id: 0 })) await this.outbox.record({ ...event, data: { ...event.data, subscriber_id: row.id } });
    return row;
  }
  /** A row's version: its contents, which every save changes (updatedAt). */
  private versionOf(row: Subscriber): string {
    return JSON.stringify(row);
  }
  async findVersioned(channelId: number, email: string): Promise<{ subscriber: Subscriber; version: string } | null> {
    const row = this.rows.find((r) => r.channelId === channelId && r.email === email);
    return row ? { subscriber: { ...row }, version: this.versionOf(row) } : null;
  }
  async saveIfVersion(s: Subscriber, version: string, now: Date, events: (row: Subscriber) => OutboxEvent[]): Promise<Subscriber | null> {
    const current = this.rows.find((r) => r.id === s.id);
    if (current === undefined || this.versionOf(current) !== version) return null;
    if (this.outbox === undefined) throw new Error('FakeSubscribers has no outbox to record events in');
    const saved = await this.save(s, now);
    for (const event of events(saved)) await this.outbox.record(event);
    return saved;
  }
  async insertIfAbsent(s: NewSubscriber, now: Date): Promise<Subscriber | null> {
    if (this.rows.some((r) => r.channelId === s.channelId && r.email === s.email)) return null;
    const row: Subscriber = {
      id: this.rows.length + 1,
      channelId: s.channelId,
      email: s.email,
      firstName: s.firstName ?? null,
      lastName: s.lastName ?? null,
      ipAddress: s.ipAddress ?? null,
      isActive: s.isActive ?? true,
      source: s.source ?? 'api_subscription',
      subscribedAt: s.subscribedAt ?? now,
      unsubscribedAt: null,
      confirmedAt: null,
      requiresConfirmation: s.requiresConfirmation,
      redactedAt: null,
      tags: s.tags ?? [],
      customData: s.customData ?? {},
      createdAt: now,
      updatedAt: now,
    };
    this.rows.push(row);
    return { ...row };
  }
  async findByEmail(channelId: number, email: string): Promise<Subscriber | null> {
    const row = this.rows.find((r) => r.channelId === channelId && r.email === email);
    return row ? { ...row } : null;
  }
  async findById(channelId: number, id: number): Promise<Subscriber | null> {
    const row = this.rows.find((r) => r.channelId === channelId && r.id === id);
    return row ? { ...row } : null;
  }
  async save(s: Subscriber, now: Date): Promise<Subscriber> {
    const index = this.rows.findIndex((r) => r.id === s.id);
    this.rows[index] = { ...s, updatedAt: now };
    return { ...this.rows[index]! };
  }
  async list(channelId: number, filter: SubscriberFilter, page: Page) {
    const mine = this.rows.filter((r) => r.channelId === channelId && (filter.isActive === undefined || r.isActive === filter.isActive)).reverse();
    return { items: mine.slice(page.offset, page.offset + page.limit), total: mine.length };
  }
}

export class FakeSubscriberConfirmations implements SubscriberConfirmationRepository {
  readonly rows: Array<SubscriberConfirmation & { tokenHash: Uint8Array; emailQueued?: boolean }> = [];
  async create(c: NewSubscriberConfirmation, now: Date): Promise<SubscriberConfirmation> {
    const row = { ...c, id: this.rows.length + 1, createdAt: now, emailSentAt: null, confirmedAt: null, supersededAt: null };
    this.rows.push(row);
    return { ...row };
  }
  async findById(id: number): Promise<SubscriberConfirmation | null> {
    return this.rows.find((r) => r.id === id) ?? null;
  }
  async findByTokenHash(hash: Uint8Array): Promise<SubscriberConfirmation | null> {
    return this.rows.find((r) => Buffer.from(r.tokenHash).equals(Buffer.from(hash))) ?? null;
  }
  async supersedeOpen(subscriberId: number, now: Date): Promise<void> {
    for (const r of this.rows) {
      if (r.subscriberId === subscriberId && r.confirmedAt === null && r.supersededAt === null) r.supersededAt = now;
    }
  }
  async markConfirmed(id: number, now: Date): Promise<void> {
    const row = this.rows.find((r) => r.id === id);
    if (row && row.confirmedAt === null) row.confirmedAt = now;
  }
  async markEmailSent(id: number, now: Date): Promise<void> {
    const row = this.rows.find((r) => r.id === id);
    if (row && row.emailSentAt === null) row.emailSentAt = now;
  }
  async countQueuedSince(subscriberId: number, since: Date): Promise<number> {
    return this.rows.filter((r) => r.subscriberId === subscriberId && r.emailQueued === true && r.createdAt >= since).length;
  }
}
