import type {
  ConfirmationTemplate,
  ConfirmationTemplateRepository,
  NewSubscriberConfirmation,
  SubscriberConfirmation,
  SubscriberConfirmationRepository,
} from '@mailcast/core';
import type { Knex } from 'knex';
import type { TemplateRow } from './pg-template.repository';

interface ConfirmationRow {
  id: number;
  channel_id: number;
  subscriber_id: number;
  template_id: number | null;
  reply_to: string | null;
  include_unsubscribe_link: boolean;
  created_at: Date;
  email_sent_at: Date | null;
  confirmed_at: Date | null;
  superseded_at: Date | null;
}

const COLUMNS = [
  'id',
  'channel_id',
  'subscriber_id',
  'template_id',
  'reply_to',
  'include_unsubscribe_link',
  'created_at',
  'email_sent_at',
  'confirmed_at',
  'superseded_at',
];

const toConfirmation = (row: ConfirmationRow): SubscriberConfirmation => ({
  id: row.id,
  channelId: row.channel_id,
  subscriberId: row.subscriber_id,
  templateId: row.template_id,
  replyTo: row.reply_to,
  includeUnsubscribeLink: row.include_unsubscribe_link,
  createdAt: row.created_at,
  emailSentAt: row.email_sent_at,
  confirmedAt: row.confirmed_at,
  supersededAt: row.superseded_at,
});

/** Double opt-in links; the token hash is written once and only ever used to look a link up. */
export class PgSubscriberConfirmationRepository implements SubscriberConfirmationRepository {
  constructor(private readonly db: Knex) {}

  async create(c: NewSubscriberConfirmation, now: Date): Promise<SubscriberConfirmation> {
    const [row] = await this.db('subscriber_confirmations')
      .insert({
        channel_id: c.channelId,
        subscriber_id: c.subscriberId,
        token_hash: Buffer.from(c.tokenHash),
        template_id: c.templateId,
        reply_to: c.replyTo,
        include_unsubscribe_link: c.includeUnsubscribeLink,
        email_queued: c.emailQueued ?? false,
        created_at: now,
      })
      .returning(COLUMNS);
    return toConfirmation(row as ConfirmationRow);
  }

  async findById(id: number): Promise<SubscriberConfirmation | null> {
    const row = await this.db('subscriber_confirmations').select(COLUMNS).where({ id }).first();
    return row ? toConfirmation(row as ConfirmationRow) : null;
  }

  async findByTokenHash(hash: Uint8Array): Promise<SubscriberConfirmation | null> {
    const row = await this.db('subscriber_confirmations')
      .select(COLUMNS)
      .where({ token_hash: Buffer.from(hash) })
      .first();
    return row ? toConfirmation(row as ConfirmationRow) : null;
  }

  async supersedeOpen(subscriberId: number, now: Date): Promise<void> {
    await this.db('subscriber_confirmations')
      .where({ subscriber_id: subscriberId })
      .whereNull('confirmed_at')
      .whereNull('superseded_at')
      .update({ superseded_at: now });
  }

  async markConfirmed(id: number, now: Date): Promise<void> {
    await this.db('subscriber_confirmations').where({ id }).whereNull('confirmed_at').update({ confirmed_at: now });
  }

  async markEmailSent(id: number, now: Date): Promise<void> {
    await this.db('subscriber_confirmations').where({ id }).whereNull('email_sent_at').update({ email_sent_at: now });
  }

  async countQueuedSince(subscriberId: number, since: Date): Promise<number> {
    const row = await this.db('subscriber_confirmations')
      .where({ subscriber_id: subscriberId, email_queued: true })
      .where('created_at', '>=', since)
      .count<{ n: string }[]>('* as n')
      .first();
    return Number(row?.n ?? 0);
  }
}

/** The channel's templates of purpose `confirmation` (docs/templates.md), as double opt-in reads them. */
const CONFIRMATION = { template_purpose: 'confirmation' };

const toTemplate = (row: TemplateRow): ConfirmationTemplate => ({
  id: Number(row.id),
  channelId: Number(row.channel_id),
  name: row.label,
  // A confirmation template is refused at save without both.
  subject: row.subject ?? '',
  body: row.body ?? '',
  isDefault: row.default_confirmation,
});

export class PgConfirmationTemplateRepository implements ConfirmationTemplateRepository {
  constructor(private readonly db: Knex) {}

  async create(t: Omit<ConfirmationTemplate, 'id'>): Promise<ConfirmationTemplate> {
    const [row] = await this.db('templates')
      .insert({ channel_id: t.channelId, label: t.name, subject: t.subject, body: t.body, default_confirmation: t.isDefault, ...CONFIRMATION })
      .returning('*');
    return toTemplate(row as TemplateRow);
  }

  async findById(channelId: number, id: number): Promise<ConfirmationTemplate | null> {
    const row = await this.db('templates')
      .where({ channel_id: channelId, id, ...CONFIRMATION })
      .first();
    return row ? toTemplate(row as TemplateRow) : null;
  }

  async findDefault(channelId: number): Promise<ConfirmationTemplate | null> {
    const row = await this.db('templates')
      .where({ channel_id: channelId, default_confirmation: true, ...CONFIRMATION })
      .first();
    return row ? toTemplate(row as TemplateRow) : null;
  }
}
