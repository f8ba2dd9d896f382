import type {
  IdempotencyClaim,
  IdempotencyStore,
  NewTransactional,
  Page,
  Transactional,
  TransactionalEvent,
  TransactionalFilter,
  TransactionalRepository,
  TransactionalSummary,
} from '../ports';

export class FakeTransactionals implements TransactionalRepository {
  readonly rows: Transactional[] = [];
  async create(t: NewTransactional, now: Date): Promise<Transactional> {
    const row = { ...t, id: this.rows.length + 1, messageId: null, error: null, sentAt: null, createdAt: now };
    this.rows.push(row);
    return { ...row };
  }
  async findById(channelId: number, id: number): Promise<Transactional | null> {
    return this.rows.find((t) => t.channelId === channelId && t.id === id) ?? null;
  }
  async list(channelId: number, filter: TransactionalFilter, page: Page): Promise<{ items: TransactionalSummary[]; total: number }> {
    const needle = filter.emailContains?.toLowerCase();
    const matching = this.rows
      .filter((t) => t.channelId === channelId && (filter.status === undefined || t.status === filter.status))
      .filter((t) => needle === undefined || t.to.toLowerCase().includes(needle))
      .filter(
        (t) =>
          (filter.createdAfter === undefined || t.createdAt >= filter.createdAfter) &&
          (filter.createdBefore === undefined || t.createdAt <= filter.createdBefore),
      )
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id);
    return { items: matching.slice(page.offset, page.offset + page.limit), total: matching.length };
  }
  /** The fake keeps no outbox: events are the pg repository's (tested for real). */
  async events(): Promise<TransactionalEvent[]> {
    return [];
  }
  private readonly attempts = new Map<number, number>();
  async claimForSending(id: number, attempt: number, messageId: string): Promise<Transactional | null> {
    const row = this.rows.find((t) => t.id === id && t.status === 'queued' && (this.attempts.get(id) ?? 0) === attempt - 1);
    if (!row) return null;
    this.attempts.set(id, attempt);
    row.messageId ??= messageId;
    return { ...row };
  }
  async releaseAwaiting(subscriberId: number): Promise<number[]> {
    const held = this.rows.filter((t) => t.subscriberId === subscriberId && t.status === 'awaiting_confirmation');
    for (const t of held) t.status = 'queued';
    return held.map((t) => t.id);
  }
  /** The fake keeps no subscribers: its links name no one (the pg repository is tested for real). */
  async findUnsubscribeTarget(): Promise<null> {
    return null;
  }
  async settle(id: number, change: Partial<Pick<Transactional, 'status' | 'messageId' | 'error' | 'sentAt'>>): Promise<void> {
    const row = this.rows.find((t) => t.id === id);
    if (row) Object.assign(row, change);
  }
}

export class FakeIdempotency implements IdempotencyStore {
  readonly keys = new Map<string, { fingerprint: string; status: number | null; body: Record<string, unknown> | null }>();
  async claim(tokenId: number, key: string, fingerprint: string): Promise<IdempotencyClaim> {
    const found = this.keys.get(`${tokenId}:${key}`);
    if (!found) {
      this.keys.set(`${tokenId}:${key}`, { fingerprint, status: null, body: null });
      return { kind: 'first' };
    }
    if (found.fingerprint !== fingerprint) return { kind: 'other_body' };
    return found.status === null || found.body === null ? { kind: 'in_progress' } : { kind: 'replay', status: found.status, body: found.body };
  }
  async complete(tokenId: number, key: string, status: number, body: Record<string, unknown>): Promise<void> {
    const found = this.keys.get(`${tokenId}:${key}`);
    if (found) Object.assign(found, { status, body });
  }
  async release(tokenId: number, key: string): Promise<void> {
    this.keys.delete(`${tokenId}:${key}`);
  }
}
