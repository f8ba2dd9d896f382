import type { SuppressionReason, SuppressionScope } from '@mailcast/domain';
import type { Page, Suppression, SuppressionList, SuppressionRepository } from '../ports';

/** Both lists in memory, with the repository's rules: one entry per (list, address). */
export class FakeSuppressions implements SuppressionRepository {
  readonly rows: Suppression[] = [];

  private at(list: SuppressionList, email: string): Suppression | undefined {
    return this.rows.find((r) => r.channelId === list && r.email === email);
  }

  async add(list: SuppressionList, email: string, reason: SuppressionReason, now: Date): Promise<{ suppression: Suppression; created: boolean }> {
    const existing = this.at(list, email);
    if (existing) return { suppression: existing, created: false };
    const suppression = { id: this.rows.length + 1, channelId: list, email, reason, createdAt: now };
    this.rows.push(suppression);
    return { suppression, created: true };
  }

  async addMany(list: SuppressionList, emails: readonly string[], reason: SuppressionReason, now: Date): Promise<number> {
    let added = 0;
    for (const email of emails) if ((await this.add(list, email, reason, now)).created) added += 1;
    return added;
  }

  async remove(list: SuppressionList, email: string): Promise<boolean> {
    const index = this.rows.findIndex((r) => r.channelId === list && r.email === email);
    if (index < 0) return false;
    this.rows.splice(index, 1);
    return true;
  }

  async removeMany(list: SuppressionList, emails: readonly string[]): Promise<number> {
    let removed = 0;
    for (const email of emails) if (await this.remove(list, email)) removed += 1;
    return removed;
  }

  async list(list: SuppressionList, filter: { emailContains?: string }, page: Page): Promise<{ items: Suppression[]; total: number }> {
    const all = this.rows
      .filter((r) => r.channelId === list && (filter.emailContains === undefined || r.email.includes(filter.emailContains.toLowerCase())))
      .reverse();
    return { items: all.slice(page.offset, page.offset + page.limit), total: all.length };
  }

  async find(channelId: number, email: string): Promise<(Suppression & { scope: SuppressionScope }) | null> {
    const own = this.at(channelId, email);
    if (own) return { ...own, scope: 'channel' };
    const global = this.at(null, email);
    return global ? { ...global, scope: 'global' } : null;
  }
}
