import { ClaimQueue, type ClaimQueueOptions } from './claim-queue';
import { LeaseHold } from './lease-hold';
import type { Claim, LeasedWork } from './leased-work';
import { realTimers } from './test-support/real-timers';

const LEASE_MS = 60_000;

interface Item {
  id: number;
  /** False: the claim itself settles it (an unsendable recipient). */
  sendable: boolean;
}
const item = (id: number, sendable = true): Item => ({ id, sendable });

/** A list of work items; a claim takes the next ones past `afterId`. */
class ClaimingStore implements LeasedWork<Item, never> {
  running = true;
  failuresLeft = 0;
  claims: number[] = [];
  private taken = new Set<number>();

  constructor(
    private readonly list: Item[],
    private readonly onClaim: () => void = () => undefined,
  ) {}
  async goesOn(): Promise<boolean> {
    return this.running;
  }
  async claim({ afterId, limit }: { afterId: number; limit: number }): Promise<Claim<Item>> {
    this.onClaim();
    if (this.failuresLeft > 0) {
      this.failuresLeft--;
      throw new Error('connect ECONNREFUSED');
    }
    this.claims.push(afterId);
    const batch = this.list.filter((r) => r.id > afterId && !this.taken.has(r.id)).slice(0, limit);
    for (const r of batch) this.taken.add(r.id);
    const items = batch.filter((r) => r.sendable);
    return { items, settled: batch.length - items.length, lastId: batch.at(-1)?.id ?? null };
  }
  extendLeases = async () => undefined;
  release = async () => undefined;
  perform = async (): Promise<never> => {
    throw new Error('not used by the claim queue');
  };
  record = async () => 0;
  progressed = async () => undefined;
}

describe('ClaimQueue: the items one job works, claimed ahead under its lease', () => {
  let now: number;
  let lease: LeaseHold;
  let skipped: number[];
  const queue = (store: ClaimingStore, overrides: Partial<ClaimQueueOptions> = {}) =>
    new ClaimQueue<Item>(store, lease, {
      worker: 'w',
      concurrency: 2,
      claimBatchSize: 3,
      leaseMs: LEASE_MS,
      sleep: (ms) => realTimers.sleep(ms),
      handOver: () => false,
      afterClaim: async (n) => void skipped.push(n),
      ...overrides,
    });
  const drain = async (q: ClaimQueue<Item>) => {
    const ids: number[] = [];
    for (let r = await q.next(); r !== null; r = await q.next()) ids.push(r.id);
    return ids;
  };
  beforeEach(() => {
    now = 1_000;
    lease = new LeaseHold(() => now, LEASE_MS);
    skipped = [];
  });

  it('hands out every item to work once, in order, walking forward from the last claim', async () => {
    const store = new ClaimingStore([1, 2, 3, 4, 5, 6, 7].map((id) => item(id, id !== 4)));
    const q = queue(store);
    expect(await drain(q)).toEqual([1, 2, 3, 5, 6, 7]);
    expect(q.ended).toBe('exhausted');
    // Forward from the cursor, then once more from the start before calling it done.
    expect(store.claims).toEqual([0, 3, 6, 7, 0]);
    expect(skipped).toEqual([0, 1, 0]);
  });

  it('tries a failed claim again while its lease holds (the database away), and carries on', async () => {
    const store = new ClaimingStore([1, 2].map((id) => item(id)));
    store.failuresLeft = 2;
    const q = queue(store);
    expect(await drain(q)).toEqual([1, 2]);
    expect(q.error).toBeNull();
  });

  it('gives up a failing claim once the lease can no longer be proven', async () => {
    const store = new ClaimingStore(
      [1, 2, 3, 4].map((id) => item(id)),
      () => (now += 30_000),
    );
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
    const store = new ClaimingStore([1, 2, 3].map((id) => item(id)));
    const q = queue(store);
    expect(await q.next()).toMatchObject({ id: 1 });
    now += (LEASE_MS * 2) / 3;
    expect(await q.next()).toBeNull();
    expect(q.ended).toBe('deadline');
    expect((await q.unsent()).map((r) => r.id)).toEqual([2, 3]);
  });

  it('stops at a claim that finds the run may not go on (a broadcast paused)', async () => {
    const store = new ClaimingStore([1, 2].map((id) => item(id)));
    store.running = false;
    const q = queue(store);
    expect(await q.next()).toBeNull();
    expect(q.ended).toBe('stopped');
    expect(store.claims).toEqual([]);
  });

  it('hands over at once when the job is to hand over (its slice is up)', async () => {
    const store = new ClaimingStore([1].map((id) => item(id)));
    const q = queue(store, { handOver: () => true });
    expect(await q.next()).toBeNull();
    expect(q.ended).toBe('deadline');
  });
});
