/** What a kind of write needs to go in batches: how to run one item alone, and a batch. */
export interface TurnBatchesOf<In, Out> {
  /** Items of one key never share a batch (the statement joins its answers back on it); null: any may. */
  key(item: In): string | null;
  /** One item on its own: its own statement, and its own error. */
  single(item: In): Promise<Out>;
  /** Two or more items in one statement (at most MAX_BATCH): one answer per item, in the items' order. */
  batch(items: readonly In[]): Promise<Out[]>;
}

/** Items a batch statement takes at most: its JSON input stays near 100 KB. */
const MAX_BATCH = 100;

/**
 * Statements one batcher has in flight at once. While one runs, new items wait, and go together
 * in the next as soon as it ends: under load the batches grow instead of the statements
 * multiplying, so PostgreSQL runs fewer, larger statements (its per-statement work, triggers
 * included, is shared by more rows) and they do not queue for the same cores and rows.
 */
const IN_FLIGHT = 1;

/**
 * A statement running longer than this stops holding the next one back: one that waits on a row
 * lock (an address another transaction holds) must not stop every other write of the process.
 */
const STALLED_MS = 100;

/** Statements in flight at most, stalled ones included: the pool keeps connections for the rest. */
const MAX_IN_FLIGHT = 4;

interface Pending<In, Out> {
  item: In;
  resolve(out: Out): void;
  reject(error: unknown): void;
}

/**
 * Work that reaches a repository in the same turn of the event loop goes to PostgreSQL as one
 * statement (docs/write-path.md, "Writes in batches"): under load many requests finish parsing
 * in one turn, and one statement for all of them costs PostgreSQL and the api far less than one
 * each. Nothing waits for a batch to fill: the turn's items go as soon as it ends, so a lone item
 * goes at once, through `single`. One statement is in flight at a time; what arrives meanwhile
 * goes in the next, when it ends, or once the running one has taken STALLED_MS.
 *
 * A batch whose statement fails is retried one item at a time, so one item's error (a unique
 * address taken, a deadlock) is its own and the others still get their answers.
 */
export class TurnBatches<In, Out> {
  private pending: Pending<In, Out>[] = [];
  private scheduled = false;
  /** Statements in flight, and those of them not yet stalled. */
  private running = 0;
  private fresh = 0;

  constructor(
    private readonly of: TurnBatchesOf<In, Out>,
    private readonly stalledMs = STALLED_MS,
  ) {}

  submit(item: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private mayStart(): boolean {
    return this.fresh < IN_FLIGHT && this.running < MAX_IN_FLIGHT;
  }

  private schedule(): void {
    if (this.scheduled || !this.mayStart() || this.pending.length === 0) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    if (!this.mayStart()) return;
    const batch: Pending<In, Out>[] = [];
    const later: Pending<In, Out>[] = [];
    const keys = new Set<string>();
    for (const pending of this.pending) {
      const key = this.of.key(pending.item);
      if (batch.length < MAX_BATCH && (key === null || !keys.has(key))) {
        if (key !== null) keys.add(key);
        batch.push(pending);
      } else {
        later.push(pending);
      }
    }
    this.pending = later;
    this.running++;
    this.fresh++;
    let stalled = false;
    const stall = setTimeout(() => {
      stalled = true;
      this.fresh--;
      this.schedule();
    }, this.stalledMs);
    // Neither run rejects: each answers its items, errors included.
    void (batch.length === 1 ? this.runOne(batch[0]!) : this.runBatch(batch)).finally(() => {
      clearTimeout(stall);
      this.running--;
      if (!stalled) this.fresh--;
      this.schedule();
    });
  }

  private async runOne(pending: Pending<In, Out>): Promise<void> {
    try {
      pending.resolve(await this.of.single(pending.item));
    } catch (error) {
      pending.reject(error);
    }
  }

  private async runBatch(batch: Pending<In, Out>[]): Promise<void> {
    let answers: Out[];
    try {
      answers = await this.of.batch(batch.map((pending) => pending.item));
    } catch {
      // Which item failed is not known: each one again on its own, with its own answer.
      await Promise.all(batch.map((pending) => this.runOne(pending)));
      return;
    }
    batch.forEach((pending, i) => pending.resolve(answers[i]!));
  }
}
