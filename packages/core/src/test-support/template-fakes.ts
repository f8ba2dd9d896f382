import type { Page, Template, TemplateFields, TemplateRepository } from '../ports';

/** Templates in memory, with the repository's one-default-per-channel rule. */
export class FakeTemplates implements TemplateRepository {
  readonly rows: Template[] = [];
  /** Template ids that a busy broadcast uses, as a test sets them. */
  readonly busy = new Set<number>();

  private clearDefault(channelId: number, fields: TemplateFields): void {
    if (!fields.defaultConfirmation) return;
    for (const row of this.rows) if (row.channelId === channelId) row.defaultConfirmation = false;
  }

  async create(channelId: number, fields: TemplateFields, now: Date): Promise<Template> {
    this.clearDefault(channelId, fields);
    const row = { ...fields, id: this.rows.length + 1, channelId, createdAt: now, updatedAt: now };
    this.rows.push(row);
    return { ...row };
  }

  async findById(channelId: number, id: number): Promise<Template | null> {
    const row = this.rows.find((t) => t.channelId === channelId && t.id === id);
    return row ? { ...row } : null;
  }

  async list(channelId: number, page: Page): Promise<{ items: Template[]; total: number }> {
    const all = this.rows.filter((t) => t.channelId === channelId).reverse();
    return { items: all.slice(page.offset, page.offset + page.limit), total: all.length };
  }

  async update(channelId: number, id: number, fields: TemplateFields, now: Date): Promise<Template | null> {
    const row = this.rows.find((t) => t.channelId === channelId && t.id === id);
    if (!row) return null;
    this.clearDefault(channelId, fields);
    Object.assign(row, fields, { updatedAt: now });
    return { ...row };
  }

  async delete(channelId: number, id: number): Promise<boolean> {
    const index = this.rows.findIndex((t) => t.channelId === channelId && t.id === id);
    if (index < 0) return false;
    this.rows.splice(index, 1);
    return true;
  }

  async usedByBroadcasts(templateId: number): Promise<boolean> {
    return this.busy.has(templateId);
  }
}
