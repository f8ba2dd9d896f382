import type { Broadcast, BroadcastChanges, BroadcastExpectation, BroadcastRepository, NewBroadcast, Page } from '../ports';

/** The broadcasts port in memory, for use-case tests (docs/contributing.md). */
export class FakeBroadcasts implements BroadcastRepository {
  readonly rows: Broadcast[] = [];
  async create(broadcast: NewBroadcast, now: Date): Promise<Broadcast> {
    const row: Broadcast = {
      ...broadcast,
      templateId: broadcast.templateId ?? null,
      topicId: broadcast.topicId ?? null,
      excludedSegmentIds: broadcast.excludedSegmentIds ?? [],
      archive: broadcast.archive ?? false,
      sendInSubscriberTimezone: broadcast.sendInSubscriberTimezone ?? false,
      id: this.rows.length + 1,
      status: 'draft',
      totalRecipients: 0,
      broadcastRecipientsCount: 0,
      beginSendAt: null,
      sentAt: null,
      pausedFrom: null,
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
  lock(channelId: number, id: number): Promise<Broadcast | null> {
    return this.findById(channelId, id);
  }
  async findByIdInAnyChannel(id: number): Promise<Broadcast | null> {
    return this.rows.find((b) => b.id === id) ?? null;
  }
  private matches(b: Broadcast, expected: BroadcastExpectation): boolean {
    return (
      expected.statuses.includes(b.status) &&
      b.version === expected.version &&
      (expected.dueBy === undefined || (b.scheduledSendAt !== null && b.scheduledSendAt <= expected.dueBy))
    );
  }
  async update(id: number, expected: BroadcastExpectation, changes: BroadcastChanges, now: Date) {
    const index = this.rows.findIndex((b) => b.id === id);
    const current = this.rows[index];
    if (current === undefined || !this.matches(current, expected)) return null;
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    const row: Broadcast = { ...current, ...defined, version: current.version + 1, updatedAt: now };
    this.rows[index] = row;
    return row;
  }
  async delete(channelId: number, id: number, statuses: readonly string[]): Promise<boolean> {
    const index = this.rows.findIndex((b) => b.channelId === channelId && b.id === id && statuses.includes(b.status));
    if (index < 0) return false;
    this.rows.splice(index, 1);
    return true;
  }
  async startDue(now: Date, limit: number): Promise<Broadcast[]> {
    const due = this.rows.filter((b) => b.status === 'future_scheduled' && b.scheduledSendAt !== null && b.scheduledSendAt <= now).slice(0, limit);
    const moved: Broadcast[] = [];
    for (const b of due) {
      const row = await this.update(b.id, { statuses: ['future_scheduled'], version: b.version }, { status: 'scheduled' }, now);
      if (row) moved.push(row);
    }
    return moved;
  }
  async timezoneCandidates(now: Date, before: Date, limit: number): Promise<Broadcast[]> {
    return this.rows
      .filter(
        (b) =>
          b.status === 'future_scheduled' && b.sendInSubscriberTimezone && b.scheduledSendAt !== null && b.scheduledSendAt > now && b.scheduledSendAt <= before,
      )
      .slice(0, limit);
  }
  readonly segments: Array<{ id: number; channelId: number }> = [];
  async unknownSegmentIds(channelId: number, segmentIds: readonly number[]): Promise<number[]> {
    return [...new Set(segmentIds)].filter((id) => !this.segments.some((s) => s.id === id && s.channelId === channelId));
  }
  readonly topics: Array<{ id: number; channelId: number }> = [];
  async hasTopic(channelId: number, topicId: number): Promise<boolean> {
    return this.topics.some((t) => t.id === topicId && t.channelId === channelId);
  }
  readonly retried: number[] = [];
  async prepareRetry(id: number): Promise<void> {
    this.retried.push(id);
  }
}
