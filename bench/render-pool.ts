/**
 * The broadcast rendering threads (docs/templates.md, Rendering): our pool (RenderThreads behind
 * ThreadedBroadcastRendering) against a piscina-backed prototype with the same thread count, time
 * limit and heap, in the same run, alternating, ROUNDS rounds.
 *
 *   npm run -s build && npx ts-node --transpile-only -P bench/tsconfig.json bench/render-pool.ts
 *
 * Each round, per side: RENDERS personalised recipients of one broadcast rendered with
 * IN_FLIGHT renders outstanding (as the sending workers keep several), then a runaway render (the
 * subject is HOSTILE_LIQUID, which no liquidjs limit stops) timed until it is refused, and until
 * the next healthy render is answered. The figures are the medians over the rounds.
 *
 * The prototype keeps what piscina does not have, as RenderThreads does: channels' turns,
 * the job that stopped a thread failing its remaining recipients, one answer per turn of the
 * event loop. Piscina queues an abortable task that no thread can take at once outside any custom
 * task queue (its skip queue, first come first served), so the prototype hands piscina only as
 * many tasks as it has ready threads, and times each from that hand-over.
 */
import 'reflect-metadata';
import { Htmlparser2Reader, LiquidTemplates, ThreadedBroadcastRendering } from '@mailcast/adapters';
import { InProcessBroadcastRendering, type Broadcast, type JobRenderer, type RecipientLinks, type RenderedEmail, type RenderingJob } from '@mailcast/core';
import { RenderTurns } from '@mailcast/send-engine';
import { HOSTILE_LIQUID } from '../packages/testkit/src/hostile-liquid';
import { RenderLanes } from '../packages/adapters/src/templates/render-lanes';
import { aBroadcast, subscriber } from '../packages/adapters/src/templates/test-support/broadcasts';
import path from 'node:path';
import { Piscina } from 'piscina';
import { percentile, round } from './harness';

const ROUNDS = Number(process.env.BENCH_RENDER_ROUNDS ?? 3);
const RENDERS = Number(process.env.BENCH_RENDER_RECIPIENTS ?? 20_000);
const THREADS = Number(process.env.BENCH_RENDER_THREADS ?? 1);
const IN_FLIGHT = 64;
const TIME_LIMIT_MS = Number(process.env.BENCH_RENDER_TIME_LIMIT_MS ?? 300);
const HEAP_MB = 256;
/** As DEFAULT_THREAD_YOUNG_GENERATION_MB, on both sides. */
const YOUNG_MB = 6;

/** What a prototype thread answers: the rendered email, why it failed, or that it lacks the job. */
type ThreadReply = { value: RenderedEmail } | { failed: string } | { missing: true };

interface Rendering {
  forJob(job: RenderingJob): JobRenderer;
  close(): Promise<void>;
}

interface Waiting {
  lane: number;
  jobId: number;
  recipient: RecipientLinks;
  resolve: (value: RenderedEmail) => void;
  reject: (error: Error) => void;
}

/** The piscina-backed prototype of ThreadedBroadcastRendering. */
class PiscinaBroadcastRendering implements Rendering {
  private readonly pool: Piscina;
  private readonly jobs = new Map<number, { job: RenderingJob; lane: number }>();
  private readonly given = new Map<number, string>();
  private readonly lanes = new RenderLanes<Waiting>();
  private readonly pace = new RenderTurns(setImmediate);
  private ready = 0;
  private inFlight = 0;
  private jobIds = 0;
  private closed = false;
  private readonly timeLimitMs: number;
  private readonly tasksPerThread: number;

  constructor(options: { threads: number; heapMb: number; timeLimitMs: number; tasksPerThread?: number }) {
    this.pool = new Piscina({
      filename: path.join(__dirname, 'render-pool-thread.mjs'),
      minThreads: options.threads,
      maxThreads: options.threads,
      idleTimeout: Infinity,
      concurrentTasksPerWorker: options.tasksPerThread ?? 1,
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb, maxYoungGenerationSizeMb: YOUNG_MB },
    });
    // A thread counts once it is ready (a replacement after a stop, too): only then is a task handed
    // to it. Piscina counts the threads it starts with as ready before they have loaded the script,
    // so those count once each has answered an untimed first task.
    let starting = true;
    this.pool.on('workerCreate', () => {
      if (starting) return;
      this.ready++;
      this.pump();
    });
    this.pool.on('workerDestroy', () => {
      if (!starting) this.ready--;
    });
    void Promise.all(Array.from({ length: options.threads }, () => this.pool.run({ ping: true }))).then(() => {
      starting = false;
      this.ready = this.pool.threads.length;
      this.pump();
    });
    this.timeLimitMs = options.timeLimitMs;
    this.tasksPerThread = options.tasksPerThread ?? 1;
  }

  forJob(job: RenderingJob): JobRenderer {
    const jobId = ++this.jobIds;
    const lane = job.broadcast.channelId;
    this.jobs.set(jobId, { job, lane });
    return {
      render: (recipient) => {
        if (this.closed) return Promise.reject(new Error('the rendering threads are closed'));
        const given = this.given.get(jobId);
        if (given !== undefined) return Promise.reject(new Error(given));
        return new Promise<RenderedEmail>((resolve, reject) => {
          this.lanes.add({ lane, jobId, recipient, resolve, reject });
          this.pump();
        });
      },
      close: () => {
        this.jobs.delete(jobId);
        this.given.delete(jobId);
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.lanes.drain()) task.reject(new Error('the rendering threads are closed'));
    await this.pool.destroy();
  }

  private pump(): void {
    while (!this.closed && this.inFlight < this.ready * this.tasksPerThread) {
      const task = this.lanes.next();
      if (task === undefined) return;
      const given = this.given.get(task.jobId);
      const held = this.jobs.get(task.jobId);
      if (given !== undefined) task.reject(new Error(given));
      else if (held === undefined) task.reject(new Error('the sending job has ended'));
      else void this.run(task, held.job, held.lane);
    }
  }

  private async run(task: Waiting, job: RenderingJob, lane: number): Promise<void> {
    this.inFlight++;
    let outcome: { ok: true; value: RenderedEmail } | { ok: false; error: Error };
    try {
      let reply = await this.attempt({ jobId: task.jobId, recipient: task.recipient });
      // The thread does not hold the job: the same thread slot asks again, with it.
      if ('missing' in reply) reply = await this.attempt({ jobId: task.jobId, job, recipient: task.recipient });
      if ('missing' in reply) throw new Error('the rendering thread did not keep the job');
      outcome = 'failed' in reply ? { ok: false, error: new Error(reply.failed) } : { ok: true, value: reply.value };
    } catch (error) {
      // Piscina rejects only when the thread was stopped (AbortError, the reason as its cause) or died.
      const reason =
        error instanceof Error && error.name === 'AbortError' && error.cause instanceof Error
          ? error.cause.message
          : `the rendering thread failed: ${error instanceof Error ? error.message : String(error)}`;
      if (this.jobs.has(task.jobId)) this.given.set(task.jobId, `not tried: an earlier recipient's render failed (${reason})`);
      // The lane whose request cost a thread has had its turn.
      this.lanes.toBack(lane);
      outcome = { ok: false, error: new Error(reason) };
    } finally {
      this.inFlight--;
      this.pump();
    }
    await this.pace.take();
    if (outcome.ok) task.resolve(outcome.value);
    else task.reject(outcome.error);
  }

  /** One task on a thread, aborted (its thread terminated) past the time limit. */
  private async attempt(body: { jobId: number; job?: RenderingJob; recipient: RecipientLinks }): Promise<ThreadReply> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`the render took longer than ${this.timeLimitMs} ms`)), this.timeLimitMs);
    try {
      return (await this.pool.run(body, { signal: controller.signal })) as ThreadReply;
    } finally {
      clearTimeout(timer);
    }
  }
}

const SECRET = new Uint8Array(32).fill(7);
const inProcess = new InProcessBroadcastRendering(new LiquidTemplates(), new Htmlparser2Reader());

async function jobFor(broadcast: Broadcast): Promise<RenderingJob> {
  const links = (await inProcess.trackableLinks(broadcast)).map((l, i) => ({ id: i + 1, ...l }));
  return { broadcast, links, trackingSecret: SECRET, publicUrl: 'https://mail.example.test' };
}

/** A newsletter of a few KB: personalised greeting, a condition on custom data, a loop, links. */
const NEWSLETTER = aBroadcast({
  subject: 'Hi {{ subscriber.first_name | default: "there" }}, the week at Mailcast',
  preheader: 'News for {{ subscriber.first_name }}',
  htmlBody:
    '<html><body><h1>Hello {{ subscriber.first_name }}</h1>' +
    '{% if subscriber.custom_data.plan == "pro" %}<p>Thanks for being on Pro.</p>{% else %}<p>Try Pro.</p>{% endif %}' +
    '<ul>{% for tag in subscriber.tags %}<li>{{ tag | upcase }}</li>{% endfor %}</ul>' +
    Array.from(
      { length: 12 },
      (_, i) => `<p>Story ${i}: lorem ipsum dolor sit amet. <a href="https://news.example.test/story/${i}?utm=mail">Read</a></p>`,
    ).join('') +
    '</body></html>',
});

async function renderAll(rendering: Rendering, job: RenderingJob, count: number): Promise<number> {
  const renderer = rendering.forJob(job);
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let i = next++; i < count; i = next++) {
        const person = { ...subscriber(i, `Name${i}`), tags: ['a', `t${i % 7}`], customData: { plan: i % 3 === 0 ? 'pro' : 'free' } };
        await renderer.render({ recipientId: i + 1, subscriber: person });
      }
    }),
  );
  renderer.close();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Milliseconds until a runaway render is refused, and until the next healthy render is answered. */
async function runaway(rendering: Rendering, healthy: RenderingJob, hostile: RenderingJob): Promise<{ stopped: number; recovered: number }> {
  const bad = rendering.forJob(hostile);
  const good = rendering.forJob(healthy);
  const started = process.hrtime.bigint();
  const ms = () => Number(process.hrtime.bigint() - started) / 1e6;
  const refused = await bad.render({ recipientId: 1, subscriber: subscriber(1) }).then(
    () => 'rendered',
    (error: Error) => error.message,
  );
  if (!refused.startsWith('the render took longer than')) throw new Error(`the runaway render was not stopped: ${refused}`);
  const stopped = ms();
  await good.render({ recipientId: 2, subscriber: subscriber(2) });
  const recovered = ms();
  bad.close();
  good.close();
  return { stopped, recovered };
}

async function main(): Promise<void> {
  const job = await jobFor(NEWSLETTER);
  const hostile = await jobFor(aBroadcast({ id: 2, channelId: 2, subject: HOSTILE_LIQUID, htmlBody: '<p>x</p>' }));
  const small = await jobFor(aBroadcast({ id: 3, channelId: 3, htmlBody: '<p>Hi {{ subscriber.first_name }}</p>' }));
  const sides: Array<{ name: string; make: () => Rendering }> = [
    { name: 'RenderThreads (ours)', make: () => new ThreadedBroadcastRendering({ threads: THREADS, heapMb: HEAP_MB, timeLimitMs: TIME_LIMIT_MS }) },
    { name: 'piscina prototype', make: () => new PiscinaBroadcastRendering({ threads: THREADS, heapMb: HEAP_MB, timeLimitMs: TIME_LIMIT_MS }) },
  ];
  const results = new Map(sides.map((s) => [s.name, { renderMs: [] as number[], stoppedMs: [] as number[], recoveredMs: [] as number[] }]));
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      const rendering = side.make();
      try {
        // Threads started and warm (JIT) before the timed part: 1,000 renders.
        await renderAll(rendering, job, 1_000);
        const renderMs = await renderAll(rendering, job, RENDERS);
        const { stopped, recovered } = await runaway(rendering, small, hostile);
        const figures = results.get(side.name)!;
        figures.renderMs.push(renderMs);
        figures.stoppedMs.push(stopped);
        figures.recoveredMs.push(recovered);
        console.error(
          `round ${r + 1} ${side.name}: ${RENDERS} renders ${round(renderMs, 0)} ms (${round(RENDERS / (renderMs / 1000), 0)}/s); ` +
            `runaway refused after ${round(stopped, 1)} ms, next render answered after ${round(recovered, 1)} ms`,
        );
      } finally {
        await rendering.close();
      }
    }
  }
  const median = (values: number[]) => percentile(values, 50);
  console.log(
    `Broadcast rendering, ${THREADS} thread(s), time limit ${TIME_LIMIT_MS} ms, ${IN_FLIGHT} renders outstanding, medians of ${ROUNDS} alternating rounds`,
  );
  console.log(`| side | ${RENDERS} renders, ms | renders/s | runaway refused after, ms | next render answered after, ms |`);
  console.log('|---|---|---|---|---|');
  for (const [name, f] of results) {
    const ms = median(f.renderMs);
    console.log(`| ${name} | ${round(ms, 0)} | ${round(RENDERS / (ms / 1000), 0)} | ${round(median(f.stoppedMs), 1)} | ${round(median(f.recoveredMs), 1)} |`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
