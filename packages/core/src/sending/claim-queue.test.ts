import type { BroadcastStatus } from '@mailcast/domain';
import type { Broadcast, ClaimedRecipient } from '../ports';
import { ClaimQueue, type ClaimQueueOptions } from './claim-queue';
import { LeaseHold } from './lease-hold';
import { FakeRecipientStore } from './test-support/fake-recipient-store';

const LEASE_MS = 60_000;

const recipient = (id: number, sendable = true): ClaimedRecipient => ({
  id,
  broadcastId: 1,
  messageId: `<${id}@t>`,
  attempts: 1,
  sendable,
  subscriber: {
    id, email: `s${id}@example.test`, firstName: null, lastName: null, tags: [], customData: {},
    isActive: sendable, source: 'api', subscribedAt: new Date(0), unsubscribedAt: null,
  },
});

/** The recipients of one broadcast in a list; a claim takes the next ones past `afterId`. */
class ClaimingStore extends FakeRecipientStore {
  status: BroadcastStatus = 'sending';
  failuresLeft = 0;
  claims: number[] = [];
  private taken = new Set<number>();

  constructor(
    private readonly list: ClaimedRecipient[],
    private readonly onClaim: () => void = () => undefined,
  ) {
    super();
  }
  override async findBroadcast(): Promise<Broadcast | null> {
    return { id: 1, status: this.status } as Broadcast;
  }
  override async claim(_b: number, _w: string, _now: Date, _lease: number, limit: number, afterId: number): Promise<ClaimedRecipient[]> {
    this.onClaim();
    if (this.failuresLeft > 0) {
      this.failuresLeft--;
      throw new Error('connect ECONNREFUSED');
    }
    this.claims.push(afterId);
    const batch = this.list.filter((r) => r.id > afterId && !this.taken.has(r.id)).slice(0, limit);
    for (const r of batch) this.taken.add(r.id);
    return batch;
  }
}

describe('ClaimQueue: the recipients one job sends, claimed ahead under its lease', () => {
  let now: number;
  let lease: LeaseHold;
  let skipped: number[];
  const queue = (store: ClaimingStore, overrides: Partial<ClaimQueueOptions> = {}) =>
    new ClaimQueue(store, lease, {
      broadcastId: 1,
      worker: 'w',
      concurrency: 2,
      claimBatchSize: 3,
      leaseMs: LEASE_MS,
      now: () => new Date(now),
      handOver: () => false,
      afterClaim: async (n) => void skipped.push(n),
      ...overrides,
    });
  const drain = async (q: ClaimQueue) => {
    const ids: number[] = [];
    for (let r = await q.next(); r !== null; r = await q.next()) ids.push(r.id);
    return ids;
  };
  beforeEach(() => {
    now = 1_000;
    lease = new LeaseHold(() => now, LEASE_MS);
    skipped = [];
  });

  it('hands out every sendable recipient once, in order, walking forward from the last claim', async () => {
    const store = new ClaimingStore([1, 2, 3, 4, 5, 6, 7].map((id) => recipient(id, id !== 4)));
    const q = queue(store);
    expect(await drain(q)).toEqual([1, 2, 3, 5, 6, 7]);
    expect(q.ended).toBe('exhausted');
    // Forward from the cursor, then once more from the start before calling it done.
    expect(store.claims).toEqual([0, 3, 6, 7, 0]);
    expect(skipped).toEqual([0, 1, 0]);
  });

  it('tries a failed claim again while its lease holds (the database away), and carries on', async () => {
    const store = new ClaimingStore([1, 2].map((id) => recipient(id)));
    store.failuresLeft = 2;
    const q = queue(store);
    expect(await drain(q)).toEqual([1, 2]);
    expect(q.error).toBeNull();
  });

  it('gives up a failing claim once the lease can no longer be proven', async () => {
    const store = new ClaimingStore([1, 2, 3, 4].map((id) => recipient(id)), () => (now += 30_000));
    const q = queue(store, { claimBatchSize: 2 });
    expect(await q.next()).toMatchObject({ id: 1 });
    store.failuresLeft = 10;
    expect(await q.next()).toMatchObject({ id: 2 });
    // The next claim fails past the lease's margin: nothing more is handed out.
    expect(await q.next()).toBeNull();
    expect(q.ended).toBe('stopped');
    expect(q.error).toEqual(new Error('connect ECONNREFUSED'));
  });

  it('hands out nothing more once its lease may have lapsed, and keeps the rest to release', async () => {
    const store = new ClaimingStore([1, 2, 3].map((id) => recipient(id)));
    const q = queue(store);
    expect(await q.next()).toMatchObject({ id: 1 });
    now += (LEASE_MS * 2) / 3;
    expect(await q.next()).toBeNull();
    expect(q.ended).toBe('deadline');
    expect((await q.unsent()).map((r) => r.id)).toEqual([2, 3]);
  });

  it('stops at a claim that finds the broadcast no longer sending (paused)', async () => {
    const store = new ClaimingStore([1, 2].map((id) => recipient(id)));
    store.status = 'paused';
    const q = queue(store);
    expect(await q.next()).toBeNull();
    expect(q.ended).toBe('stopped');
    expect(store.claims).toEqual([]);
  });

  it('hands over at once when the job is to hand over (its slice is up)', async () => {
    const store = new ClaimingStore([1].map((id) => recipient(id)));
    const q = queue(store, { handOver: () => true });
    expect(await q.next()).toBeNull();
    expect(q.ended).toBe('deadline');
  });
});
