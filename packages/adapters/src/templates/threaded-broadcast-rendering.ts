import { RenderTurns } from '@mailcast/send-engine';
import type {
  Broadcast,
  BroadcastRendering,
  JobRenderer,
  RecipientLinks,
  RenderedEmail,
  RenderingJob,
  SequenceEmailFor,
  SequenceRendering,
  SequenceStepJob,
  SequenceStepRenderer,
} from '@mailcast/core';
import path from 'node:path';
import { RenderThreads, type RenderThreadsOptions } from './render-threads';

/** What a thread is asked: one recipient of a job rendered, one sequence email, or a broadcast's trackable links. */
export type RenderRequest =
  | { kind: 'render'; jobId: number; recipient: RecipientLinks }
  | { kind: 'sequence'; jobId: number; email: SequenceEmailFor }
  | { kind: 'links'; broadcast: Broadcast };
/** A job's context, sent once per job and thread: a broadcast's sending job, or a sequence step's turn. */
export type RenderJobContext = { kind: 'job'; jobId: number; job: RenderingJob } | { kind: 'sequence-job'; jobId: number; job: SequenceStepJob };
/** To a thread: a job's context, its end, or one request. */
export type RenderThreadRequest = RenderJobContext | { kind: 'drop'; jobId: number } | (RenderRequest & { id: number });

export interface ThreadedRenderingOptions extends Omit<RenderThreadsOptions, 'script'> {
  /** The thread's script; a test gives its own. Default: the built render-thread.js. */
  script?: string;
}

export const DEFAULT_RENDER_THREADS = 1;
export const DEFAULT_RENDER_HEAP_MB = 256;
export const DEFAULT_RENDER_TIME_LIMIT_MS = 2_000;

/** As for the SMTP threads: the build's copy when this file runs as TypeScript (the tests). */
const DEFAULT_SCRIPT = __filename.endsWith('.ts') ? path.resolve(__dirname, '../../dist/templates/render-thread.js') : path.join(__dirname, 'render-thread.js');

/**
 * Broadcast rendering on worker threads (docs/security.md "HTML"), so that user HTML and Liquid
 * never hold the dispatcher's event loop: its webhooks, leases and SMTP hand-offs go on while a
 * thread renders. The threads, their bounds and the channels' turns are RenderThreads'. A job's
 * broadcast, links, secret and public URL cross to a thread once; each render then sends only
 * the recipient.
 *
 * A recipient whose render stops a thread (past the time limit or the heap limit) fails, and so
 * do the job's remaining recipients, at once, without reaching a thread: every recipient renders
 * the same content, so trying it again would cost the limit once per recipient
 * (docs/broadcasts-and-sending.md "Content that cannot be rendered").
 */
export class ThreadedBroadcastRendering implements BroadcastRendering, SequenceRendering {
  private readonly threads: RenderThreads<RenderRequest>;
  private readonly jobs = new Map<number, RenderJobContext>();
  /** Jobs whose content stopped a thread, with what their remaining recipients fail with. */
  private readonly given = new Map<number, string>();
  private jobIds = 0;
  /** Shared by every job of the process: one recipient's answer per turn of the event loop. */
  private readonly turns = new RenderTurns(setImmediate);

  constructor(options: ThreadedRenderingOptions) {
    this.threads = new RenderThreads<RenderRequest>(
      { ...options, script: options.script ?? DEFAULT_SCRIPT },
      {
        contextOf: (body) => {
          if (body.kind === 'links') return null;
          const given = this.given.get(body.jobId);
          if (given !== undefined) return new Error(given);
          const context = this.jobs.get(body.jobId);
          if (context === undefined) return new Error('the sending job has ended');
          return { key: body.jobId, message: context satisfies RenderThreadRequest };
        },
        // Before the requests behind it are handed on, so they fail without reaching a thread.
        onStopped: (body, reason) => {
          if (body.kind !== 'links' && this.jobs.has(body.jobId)) this.given.set(body.jobId, `not tried: an earlier recipient's render failed (${reason})`);
        },
        // Answers reach the sending workers one per turn of the event loop, as renders on it did:
        // a burst of them would otherwise run many recipients' bookkeeping in one turn.
        pace: () => this.turns.take(),
      },
    );
  }

  trackableLinks(broadcast: Broadcast): Promise<Array<{ identifier: string; url: string }>> {
    return this.threads.request(broadcast.channelId, { kind: 'links', broadcast }) as Promise<Array<{ identifier: string; url: string }>>;
  }

  forJob(job: RenderingJob): JobRenderer {
    const jobId = this.open({ kind: 'job', jobId: ++this.jobIds, job });
    return {
      render: (recipient) => this.request(job.broadcast.channelId, { kind: 'render', jobId, recipient }),
      close: () => this.end(jobId),
    };
  }

  /**
   * A sequence step's emails for one turn of the runtime (docs/sequences.md, "Rendering"), on the
   * same threads and in the same channel lanes as broadcasts; an email whose render stops a thread
   * fails the step's remaining emails of the turn as a broadcast's recipients do.
   */
  forStep(job: SequenceStepJob): SequenceStepRenderer {
    const jobId = this.open({ kind: 'sequence-job', jobId: ++this.jobIds, job });
    return {
      render: (email) => this.request(job.channelId, { kind: 'sequence', jobId, email }),
      close: () => this.end(jobId),
    };
  }

  private open(context: RenderJobContext): number {
    this.jobs.set(context.jobId, context);
    return context.jobId;
  }

  private request(lane: number, body: RenderRequest & { jobId: number }): Promise<RenderedEmail> {
    const given = this.given.get(body.jobId);
    if (given !== undefined) return Promise.reject(new Error(given));
    return this.threads.request(lane, body) as Promise<RenderedEmail>;
  }

  private end(jobId: number): void {
    this.jobs.delete(jobId);
    this.given.delete(jobId);
    this.threads.forget(jobId, { kind: 'drop', jobId } satisfies RenderThreadRequest);
  }

  close(): Promise<void> {
    return this.threads.close();
  }
}
