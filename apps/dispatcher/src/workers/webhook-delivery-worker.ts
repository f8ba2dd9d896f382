import {
  ClaimWebhookAttempts,
  ExtendWebhookAttemptLeases,
  isSuccess,
  RecordWebhookFailure,
  RecordWebhookSuccesses,
  SendWebhookAttempt,
  type AttemptOutcome,
  type ClaimedAttempt,
  type JobPayloads,
} from '@mailcast/core';
import type PgBoss from 'pg-boss';
import type { DependencyContainer } from 'tsyringe';
import { Pauses } from './pauses';
import { persistently } from './persistently';

const QUEUE = 'webhooks.deliver';

type DeliverJob = PgBoss.Job<JobPayloads[typeof QUEUE]>;

/**
 * How long a known outcome is tried again before it is given up (about a minute): its attempt
 * keeps its lease meanwhile, so nobody POSTs it again while the database is away.
 */
const THROUGH_AN_OUTAGE = [250, 500, 1_000, ...Array<number>(30).fill(2_000)];

export interface WebhookDeliveryOptions {
  /** POSTs in flight to one endpoint from this dispatcher. */
  perEndpointConcurrency: number;
  /**
   * Attempts this dispatcher holds at once (in flight or waiting for their endpoint's turn),
   * first attempts handed over by the outbox relay and jobs fetched alike.
   */
  maxHeld: number;
  /** A fetch asks for at most this many jobs. */
  fetchBatchSize: number;
  /** Pause between fetches when the queue was empty. */
  idleMs: number;
  /** Jobs a slow endpoint may have waiting here behind its POSTs; more are put back for later. */
  perEndpointBacklog: number;
  /** An endpoint whose POSTs are all busy and whose oldest has run this long is slow. */
  slowAfterMs: number;
  /** How far a job put back is pushed into the future. */
  deferMs: number;
  /** 2xx outcomes are written together: at most this many, at most this long after the first. */
  flushSize: number;
  flushMs: number;
  /** The lease of the first attempts held here, renewed every third of it while held. */
  leaseMs: number;
  onError(error: unknown, context: string): void;
}

export function defaultWebhookDeliveryOptions(timeoutMs: number): Omit<WebhookDeliveryOptions, 'onError' | 'leaseMs'> {
  return {
    perEndpointConcurrency: 8,
    maxHeld: 1000,
    // pg-boss 10 orders a fetch by created_on over every queued job of the queue, so each fetch
    // costs in proportion to the backlog: fewer, larger fetches keep a deep backlog cheap.
    fetchBatchSize: 500,
    idleMs: 50,
    perEndpointBacklog: 16,
    slowAfterMs: 1000,
    // A slow endpoint frees a slot at worst once per time-out; coming back sooner only churns.
    deferMs: Math.min(Math.max(Math.floor(timeoutMs / 2), 1000), 15_000),
    flushSize: 500,
    flushMs: 20,
  };
}

/** An attempt in hand: from a fetched job (a retry, a deferral), or handed over with no job (a first attempt). */
interface Held {
  job?: DeliverJob;
  attempt: ClaimedAttempt;
}

interface EndpointLane {
  running: number;
  /** Start times of the POSTs in flight. */
  started: number[];
  waiting: Held[];
}

/**
 * POSTs the attempts of this dispatcher: first attempts handed over in memory by the outbox
 * relay (`hand`), and the 'webhooks.deliver' queue's jobs (retries, deferrals, the stalled
 * sweep's), which it works with its own fetch loop instead of boss.work: pg-boss 10
 * hands out a batch and waits for all of it, so one endpoint that hangs for the whole time-out
 * would stall every other delivery of the batch. Here each job settles on its own, each
 * endpoint has its own lane with a bounded number of POSTs in flight and a bounded backlog, and
 * jobs for an endpoint whose lane is full (at once, when its POSTs are slow) are put back with a
 * later start instead of occupying this dispatcher, so healthy endpoints keep flowing past a
 * slow or dead one.
 */
export class WebhookDeliveryWorker {
  private stopped = false;
  private held = 0;
  private readonly lanes = new Map<number, EndpointLane>();
  private successes: Array<{ jobId: string | undefined; outcome: AttemptOutcome }> = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly pauses = new Pauses();
  /** Only a loop paused for room is woken as POSTs settle: an empty queue waits its idleMs. */
  private waitingForRoom = false;
  private readonly running = new Set<Promise<void>>();
  private loop: Promise<void> | undefined;
  // Resolved once: these run for every delivery, and resolving builds a new instance each time.
  private readonly claim: ClaimWebhookAttempts;
  private readonly send: SendWebhookAttempt;
  private readonly recordSuccesses: RecordWebhookSuccesses;
  private readonly recordFailure: RecordWebhookFailure;
  private readonly extendLeases: ExtendWebhookAttemptLeases;
  /** First attempts held here (no job): their leases are renewed until their outcome is written. */
  private readonly leased = new Set<number>();
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly boss: PgBoss,
    container: DependencyContainer,
    private readonly options: WebhookDeliveryOptions,
  ) {
    this.claim = container.resolve(ClaimWebhookAttempts);
    this.send = container.resolve(SendWebhookAttempt);
    this.recordSuccesses = container.resolve(RecordWebhookSuccesses);
    this.recordFailure = container.resolve(RecordWebhookFailure);
    this.extendLeases = container.resolve(ExtendWebhookAttemptLeases);
  }

  start(): this {
    this.loop = this.run();
    let beating = false;
    this.heartbeat = setInterval(
      () => {
        if (beating || this.leased.size === 0) return;
        beating = true;
        // While the database is away this fails: the leases run on, and a lapse waits for the
        // database to have been up a whole lease, so the next beat after the outage keeps them.
        this.extendLeases
          .execute({ deliveryIds: [...this.leased], leaseMs: this.options.leaseMs })
          .catch(() => undefined)
          .finally(() => (beating = false));
      },
      Math.max(50, Math.floor(this.options.leaseMs / 3)),
    );
    return this;
  }

  /**
   * Stops fetching, lets every attempt in hand (in flight or waiting in a lane, handed over or
   * fetched) be POSTed (each bounded by the time-out), then writes them. The relay is stopped
   * first, so nothing more is handed over meanwhile.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.pauses.wake();
    await this.loop;
    while (this.running.size > 0) await Promise.all([...this.running]);
    await this.flush();
    clearInterval(this.heartbeat);
  }

  /**
   * How many more attempts this dispatcher takes now; 0 until a quarter of maxHeld is free, so
   * the relay and the fetch loop refill in sizeable batches rather than one statement per POST
   * that settles.
   */
  room(): number {
    if (this.stopped) return 0;
    const room = this.options.maxHeld - this.held;
    return room < Math.min(this.options.fetchBatchSize, this.options.maxHeld) / 4 ? 0 : room;
  }

  /**
   * First attempts from the outbox relay, already written as pending deliveries: into their
   * lanes, no job and no further read. Should this dispatcher die holding them, their rows stay
   * pending and the stalled-delivery sweep queues them again.
   */
  hand(attempts: readonly ClaimedAttempt[]): void {
    for (const a of attempts) this.leased.add(a.deliveryId);
    const back = this.admit(attempts.map((attempt) => ({ attempt })));
    this.track(this.putBack(back), 'put back');
  }

  private track(work: Promise<void>, context: string): void {
    const tracked: Promise<void> = work.catch((error: unknown) => this.options.onError(error, context)).finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        // Whatever filled the lanes (the relay too) while this loop waited for room.
        await this.putBack(this.evictFromSlowLanes());
      } catch (error) {
        this.options.onError(error, 'put back');
      }
      const room = this.room();
      if (room === 0) {
        this.waitingForRoom = true;
        await this.pauses.pause(this.options.idleMs);
        this.waitingForRoom = false;
        continue;
      }
      try {
        const jobs = await this.boss.fetch<JobPayloads[typeof QUEUE]>(QUEUE, {
          batchSize: Math.min(room, this.options.fetchBatchSize),
          // Every delivery job has the same priority: ordering by it only adds to the sort.
          priority: false,
        });
        if (jobs.length === 0) {
          await this.pauses.pause(this.options.idleMs);
          continue;
        }
        // Claimed while the next fetch runs: the round trips overlap instead of adding up.
        this.held += jobs.length;
        const accepting = this.accept(jobs)
          .catch((error: unknown) => this.options.onError(error, 'claim'))
          .finally(() => {
            this.held -= jobs.length;
            this.running.delete(accepting);
          });
        this.running.add(accepting);
      } catch (error) {
        this.options.onError(error, 'fetch');
        await this.pauses.pause(Math.max(this.options.idleMs, 1000));
      }
    }
  }

  private lane(endpointId: number): EndpointLane {
    let lane = this.lanes.get(endpointId);
    if (lane === undefined) {
      lane = { running: 0, started: [], waiting: [] };
      this.lanes.set(endpointId, lane);
    }
    return lane;
  }

  /**
   * Attempts that queued behind an endpoint before it turned slow go back to the queue. Nothing
   * was written for them (reading an attempt claims nothing), so this is safe at any point.
   */
  private evictFromSlowLanes(): Held[] {
    const now = Date.now();
    const evicted: Held[] = [];
    for (const lane of this.lanes.values()) {
      if (lane.waiting.length > this.options.perEndpointBacklog && this.isSlow(lane, now)) {
        const out = lane.waiting.splice(this.options.perEndpointBacklog);
        this.held -= out.length;
        evicted.push(...out);
      }
    }
    return evicted;
  }

  /**
   * Not an attempt: the same attempt number goes back as a job, later; a first attempt handed
   * over in memory becomes a job here for the first time. Inserted before the old jobs
   * complete, so a crash in between leaves a duplicate (recorded once), never a loss; a failed
   * insert leaves the delivery pending for the stalled sweep.
   */
  private async putBack(items: Held[]): Promise<void> {
    if (items.length === 0) return;
    const startAfter = new Date(Date.now() + this.options.deferMs).toISOString();
    await this.boss.insert(
      items.map(({ attempt }) => ({
        name: QUEUE,
        data: { deliveryId: attempt.deliveryId, endpointId: attempt.endpointId, attempt: attempt.attempt },
        retryLimit: 0,
        startAfter,
      })),
    );
    // A first attempt that became a job gives up its lease: once lapsed, it would be a second copy.
    const first = items.filter((item) => item.job === undefined).map((item) => item.attempt.deliveryId);
    for (const id of first) this.leased.delete(id);
    if (first.length > 0) await this.extendLeases.release({ deliveryIds: first });
    const done = items.flatMap((item) => (item.job ? [item.job.id] : []));
    if (done.length > 0) await this.boss.complete(QUEUE, done);
  }

  /** A lane is slow when all its POSTs are busy and the oldest has run past slowAfterMs. */
  private isSlow(lane: EndpointLane, now: number): boolean {
    return lane.running >= this.options.perEndpointConcurrency && Math.min(...lane.started) < now - this.options.slowAfterMs;
  }

  private async accept(jobs: DeliverJob[]): Promise<void> {
    // A failed read leaves the jobs active: pg-boss expires them (its expireIn), the
    // delivery rows are untouched, and the stalled-delivery sweep queues them again.
    const claimed = await this.claim.execute({ jobs: jobs.map((job) => job.data) });
    const byDelivery = new Map(claimed.map((attempt) => [attempt.deliveryId, attempt]));
    const stale: string[] = [];
    const items: Held[] = [];
    for (const job of jobs) {
      const attempt = byDelivery.get(job.data.deliveryId);
      if (attempt === undefined || attempt.attempt !== job.data.attempt)
        stale.push(job.id); // cancelled, done, or a duplicate: nothing to send
      else items.push({ job, attempt });
    }
    const back = this.admit(items);
    if (stale.length > 0) await this.boss.complete(QUEUE, stale);
    await this.putBack(back);
  }

  /**
   * Into their endpoints' lanes, and their POSTs started as far as the lanes allow. A healthy
   * endpoint takes what comes (maxHeld bounds the whole); a slow one gets only a small waiting
   * room, and the rest is returned, to go back to the queue for later.
   */
  private admit(items: Held[]): Held[] {
    const back: Held[] = [];
    const now = Date.now();
    const touched = new Set<number>();
    for (const item of items) {
      const lane = this.lane(item.attempt.endpointId);
      if (this.isSlow(lane, now) && lane.waiting.length >= this.options.perEndpointBacklog) {
        back.push(item);
      } else {
        lane.waiting.push(item);
        touched.add(item.attempt.endpointId);
      }
    }
    // Each attempt waiting in a lane holds its own place until it settles.
    this.held += items.length - back.length;
    for (const endpointId of touched) this.pump(endpointId);
    for (const item of back) {
      const lane = this.lanes.get(item.attempt.endpointId);
      if (lane && lane.running === 0 && lane.waiting.length === 0) this.lanes.delete(item.attempt.endpointId);
    }
    return back;
  }

  private pump(endpointId: number): void {
    const lane = this.lane(endpointId);
    while (lane.running < this.options.perEndpointConcurrency && lane.waiting.length > 0) {
      const next = lane.waiting.shift()!;
      lane.running += 1;
      const startedAt = Date.now();
      lane.started.push(startedAt);
      const work = this.attempt(next).finally(() => {
        lane.running -= 1;
        lane.started.splice(lane.started.indexOf(startedAt), 1);
        this.held -= 1;
        this.running.delete(work);
        if (lane.running === 0 && lane.waiting.length === 0) this.lanes.delete(endpointId);
        else this.pump(endpointId);
        if (this.waitingForRoom && this.room() > 0) this.pauses.wake();
      });
      this.running.add(work);
    }
  }

  private async attempt({ job, attempt }: Held): Promise<void> {
    try {
      const outcome = await this.send.execute(attempt);
      if (isSuccess(outcome.result)) {
        this.successes.push({ jobId: job?.id, outcome });
        if (this.successes.length >= this.options.flushSize) void this.flush();
        else this.flushTimer ??= setTimeout(() => void this.flush(), this.options.flushMs);
        return;
      }
      await persistently(() => this.recordFailure.execute(outcome), THROUGH_AN_OUTAGE);
      this.leased.delete(attempt.deliveryId);
      if (job) await this.boss.complete(QUEUE, job.id);
    } catch (error) {
      // Its lease lapses unrenewed: another dispatcher tries it again then.
      this.leased.delete(attempt.deliveryId);
      // Unrecorded, the delivery stays pending: the stalled-delivery sweep queues it again.
      this.options.onError(error, 'attempt');
      if (job) await this.boss.fail(QUEUE, job.id, { message: error instanceof Error ? error.message : String(error) }).catch(() => undefined);
    }
  }

  /**
   * Writes the buffered 2xx outcomes in one statement, then completes their jobs at once (first
   * attempts handed over in memory have none). Flushes may overlap: they touch disjoint
   * delivery rows.
   */
  private async flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batch = this.successes;
    this.successes = [];
    if (batch.length === 0) return;
    const jobIds = batch.flatMap((b) => (b.jobId === undefined ? [] : [b.jobId]));
    const work = (async () => {
      try {
        await persistently(() => this.recordSuccesses.execute(batch.map((b) => b.outcome)), THROUGH_AN_OUTAGE);
        for (const b of batch) this.leased.delete(b.outcome.attempt.deliveryId);
        if (jobIds.length > 0) await this.boss.complete(QUEUE, jobIds);
      } catch (error) {
        for (const b of batch) this.leased.delete(b.outcome.attempt.deliveryId);
        this.options.onError(error, 'record successes');
        if (jobIds.length > 0) await this.boss.fail(QUEUE, jobIds).catch(() => undefined);
      }
    })();
    this.running.add(work);
    await work.finally(() => this.running.delete(work));
  }
}
