import type {
  AttemptFailure,
  AttemptSuccess,
  ClaimedAttempt,
  DeliveryJobRef,
  NewWebhookEndpoint,
  Page,
  WebhookDelivery,
  WebhookDeliveryRepository,
  WebhookEndpoint,
  WebhookEndpointChanges,
  WebhookEndpointRepository,
} from '../ports';

export class FakeWebhookEndpoints implements WebhookEndpointRepository {
  readonly rows: Array<WebhookEndpoint & { deleted: boolean }> = [];

  async create(endpoint: NewWebhookEndpoint, now: Date): Promise<WebhookEndpoint> {
    const row = { ...endpoint, id: this.rows.length + 1, lastResponseCode: null, lastSentAt: null, createdAt: now, updatedAt: now };
    this.rows.push({ ...row, deleted: false });
    return row;
  }
  async findById(channelId: number, id: number): Promise<WebhookEndpoint | null> {
    const row = this.rows.find((r) => r.id === id && r.channelId === channelId && !r.deleted);
    return row ? strip(row) : null;
  }
  async list(channelId: number, page: Page): Promise<{ items: WebhookEndpoint[]; total: number }> {
    const mine = this.rows.filter((r) => r.channelId === channelId && !r.deleted).reverse();
    return { items: mine.slice(page.offset, page.offset + page.limit).map(strip), total: mine.length };
  }
  async update(channelId: number, id: number, changes: WebhookEndpointChanges, now: Date): Promise<WebhookEndpoint | null> {
    const row = this.rows.find((r) => r.id === id && r.channelId === channelId && !r.deleted);
    if (!row) return null;
    Object.assign(row, changes, { updatedAt: now });
    return strip(row);
  }
  async delete(channelId: number, id: number): Promise<boolean> {
    const row = this.rows.find((r) => r.id === id && r.channelId === channelId && !r.deleted);
    if (!row) return false;
    row.deleted = true;
    return true;
  }
}

function strip(row: WebhookEndpoint & { deleted: boolean }): WebhookEndpoint {
  const { deleted: _deleted, ...endpoint } = row;
  return endpoint;
}

/** Records what the use cases asked for; the SQL behind it is tested against PostgreSQL. */
export class FakeWebhookDeliveries implements WebhookDeliveryRepository {
  readonly failures: AttemptFailure[] = [];
  readonly successes: AttemptSuccess[] = [];
  readonly deliveries: WebhookDelivery[] = [];

  async listForEndpoint(endpointId: number, page: Page): Promise<{ items: WebhookDelivery[]; total: number }> {
    const mine = this.deliveries.filter((d) => d.webhookEndpointId === endpointId).reverse();
    return { items: mine.slice(page.offset, page.offset + page.limit), total: mine.length };
  }
  async findById(id: number): Promise<WebhookDelivery | null> {
    return this.deliveries.find((d) => d.id === id) ?? null;
  }
  async createTestDelivery(input: Parameters<WebhookDeliveryRepository['createTestDelivery']>[0]) {
    const delivery: WebhookDelivery = {
      id: this.deliveries.length + 1,
      channelId: input.channelId,
      eventId: 1000 + this.deliveries.length,
      webhookEndpointId: input.endpointId,
      eventType: input.type,
      eventData: input.data,
      status: 'pending',
      attemptNumber: 0,
      responseStatus: null,
      responseBody: null,
      errorMessage: null,
      firstAttemptAt: null,
      lastAttemptAt: null,
      nextRetryAt: null,
      successfullyDeliveredAt: null,
      createdAt: input.now,
      updatedAt: input.now,
    };
    this.deliveries.push(delivery);
    return { eventId: delivery.eventId, delivery };
  }
  async fanOut(): Promise<{ events: number; attempts: ClaimedAttempt[] }> {
    return { events: 0, attempts: [] };
  }
  async takeStalled(): Promise<DeliveryJobRef[]> {
    return [];
  }
  async extendLeases(): Promise<void> {}
  async takeLapsed(): Promise<DeliveryJobRef[]> {
    return [];
  }
  async claim(): Promise<ClaimedAttempt[]> {
    return [];
  }
  async recordSuccesses(successes: readonly AttemptSuccess[]): Promise<void> {
    this.successes.push(...successes);
  }
  async recordFailure(failure: AttemptFailure): Promise<boolean> {
    this.failures.push(failure);
    return true;
  }
}
