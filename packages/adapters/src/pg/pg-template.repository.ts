import type { Page, Template, TemplateFields, TemplatePurpose, TemplateRepository } from '@mailcast/core';
import { totalFromPage } from '@mailcast/domain';
import type { Knex } from 'knex';

export interface TemplateRow {
  id: number;
  channel_id: number;
  label: string;
  subject: string | null;
  preheader: string | null;
  body: string | null;
  html_body: string | null;
  template_purpose: TemplatePurpose;
  default_confirmation: boolean;
  created_at: Date;
  updated_at: Date;
}

const toTemplate = (row: TemplateRow): Template => ({
  id: Number(row.id),
  channelId: Number(row.channel_id),
  label: row.label,
  subject: row.subject,
  preheader: row.preheader,
  body: row.body,
  htmlBody: row.html_body,
  purpose: row.template_purpose,
  defaultConfirmation: row.default_confirmation,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toRow = (f: TemplateFields) => ({
  label: f.label,
  subject: f.subject,
  preheader: f.preheader,
  body: f.body,
  html_body: f.htmlBody,
  template_purpose: f.purpose,
  default_confirmation: f.defaultConfirmation,
});

/**
 * Templates (docs/templates.md). One default confirmation template per channel: the partial
 * unique index guarantees it; a new default first takes the flag off the old one, in the same
 * transaction (the use cases run these writes in one).
 */
export class PgTemplateRepository implements TemplateRepository {
  constructor(private readonly db: Knex) {}

  private async clearDefault(channelId: number, fields: TemplateFields, exceptId?: number): Promise<void> {
    if (!fields.defaultConfirmation) return;
    const q = this.db('templates').where({ channel_id: channelId, default_confirmation: true });
    if (exceptId !== undefined) q.whereNot('id', exceptId);
    await q.update({ default_confirmation: false });
  }

  async create(channelId: number, fields: TemplateFields, now: Date): Promise<Template> {
    await this.clearDefault(channelId, fields);
    const [row] = await this.db('templates')
      .insert({ channel_id: channelId, ...toRow(fields), created_at: now, updated_at: now })
      .returning('*');
    return toTemplate(row as TemplateRow);
  }

  async findById(channelId: number, id: number): Promise<Template | null> {
    const row = (await this.db('templates').where({ channel_id: channelId, id }).first()) as TemplateRow | undefined;
    return row ? toTemplate(row) : null;
  }

  async list(channelId: number, page: Page): Promise<{ items: Template[]; total: number }> {
    const rows = (await this.db('templates')
      .where({ channel_id: channelId })
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(page.limit)
      .offset(page.offset)) as TemplateRow[];
    const total =
      totalFromPage(page.offset, page.limit, rows.length) ??
      Number((await this.db('templates').where({ channel_id: channelId }).count<{ count: string }[]>({ count: '*' }))[0]?.count ?? 0);
    return { items: rows.map(toTemplate), total };
  }

  async update(channelId: number, id: number, fields: TemplateFields, now: Date): Promise<Template | null> {
    await this.clearDefault(channelId, fields, id);
    const [row] = await this.db('templates')
      .where({ channel_id: channelId, id })
      .update({ ...toRow(fields), updated_at: now })
      .returning('*');
    return row ? toTemplate(row as TemplateRow) : null;
  }

  async delete(channelId: number, id: number): Promise<boolean> {
    return (await this.db('templates').where({ channel_id: channelId, id }).delete()) > 0;
  }

  async usedByBroadcasts(templateId: number, statuses: readonly string[]): Promise<boolean> {
    const row = await this.db('broadcasts')
      .where({ template_id: templateId })
      .whereIn('status', [...statuses])
      .first('id');
    return row !== undefined;
  }
}
