import type { NewWebhookEndpoint, Page, WebhookEndpoint, WebhookEndpointChanges, WebhookEndpointRepository } from '@mailcast/core';
import type { EventType } from '@mailcast/domain';
import type { Knex } from 'knex';
import type { SecretBox } from '../secrets/secret-box';

interface EndpointRow {
  id: number;
  channel_id: number;
  url: string;
  description: string | null;
  active: boolean;
  event_types: string[];
  retries_to_attempt: number;
  secret: string;
  last_response_code: number | null;
  last_sent_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const toEndpoint = (row: EndpointRow, secrets: SecretBox): WebhookEndpoint => ({
  id: row.id,
  channelId: row.channel_id,
  url: row.url,
  description: row.description,
  active: row.active,
  eventTypes: row.event_types as EventType[],
  retriesToAttempt: row.retries_to_attempt,
  secret: secrets.openText('webhook_endpoints.secret', row.secret),
  lastResponseCode: row.last_response_code,
  lastSentAt: row.last_sent_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const COLUMNS = [
  'id',
  'channel_id',
  'url',
  'description',
  'active',
  'event_types',
  'retries_to_attempt',
  'secret',
  'last_response_code',
  'last_sent_at',
  'created_at',
  'updated_at',
];

export class PgWebhookEndpointRepository implements WebhookEndpointRepository {
  /** The secret is sealed at rest (docs/secrets.md). */
  constructor(
    private readonly db: Knex,
    private readonly secrets: SecretBox,
  ) {}

  private live(channelId: number) {
    return this.db<EndpointRow>('webhook_endpoints').where({ channel_id: channelId }).whereNull('deleted_at');
  }

  async create(endpoint: NewWebhookEndpoint, now: Date): Promise<WebhookEndpoint> {
    const [row] = await this.db<EndpointRow>('webhook_endpoints')
      .insert({
        channel_id: endpoint.channelId,
        url: endpoint.url,
        description: endpoint.description,
        active: endpoint.active,
        event_types: endpoint.eventTypes,
        retries_to_attempt: endpoint.retriesToAttempt,
        secret: this.secrets.seal('webhook_endpoints.secret', endpoint.secret),
        created_at: now,
        updated_at: now,
      })
      .returning(COLUMNS);
    return toEndpoint(row as EndpointRow, this.secrets);
  }

  async findById(channelId: number, id: number): Promise<WebhookEndpoint | null> {
    const row = (await this.live(channelId).where({ id }).first(COLUMNS)) as unknown as EndpointRow | undefined;
    return row ? toEndpoint(row, this.secrets) : null;
  }

  async list(channelId: number, page: Page): Promise<{ items: WebhookEndpoint[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.live(channelId)
        .select(COLUMNS)
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(page.limit)
        .offset(page.offset),
      this.live(channelId).count<{ count: number }[]>({ count: '*' }).first(),
    ]);
    return { items: (rows as unknown as EndpointRow[]).map((row) => toEndpoint(row, this.secrets)), total: Number(count?.count ?? 0) };
  }

  async update(channelId: number, id: number, changes: WebhookEndpointChanges, now: Date): Promise<WebhookEndpoint | null> {
    const patch: Partial<EndpointRow> = { updated_at: now };
    if (changes.url !== undefined) patch.url = changes.url;
    if (changes.description !== undefined) patch.description = changes.description;
    if (changes.active !== undefined) patch.active = changes.active;
    if (changes.eventTypes !== undefined) patch.event_types = changes.eventTypes;
    if (changes.retriesToAttempt !== undefined) patch.retries_to_attempt = changes.retriesToAttempt;
    const [row] = await this.live(channelId).where({ id }).update(patch).returning(COLUMNS);
    return row ? toEndpoint(row as EndpointRow, this.secrets) : null;
  }

  async delete(channelId: number, id: number, now: Date): Promise<boolean> {
    const deleted = await this.live(channelId)
      .where({ id })
      .update({ deleted_at: now, active: false, updated_at: now } as never);
    if (deleted === 0) return false;
    // Pending work ends here: the queued jobs find a cancelled row and do nothing.
    await this.db('webhook_deliveries')
      .where({ webhook_endpoint_id: id, status: 'pending' })
      .update({ status: 'cancelled', next_retry_at: null, updated_at: now });
    return true;
  }
}
