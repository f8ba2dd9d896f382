/**
 * One thread of a ThreadedBroadcastRendering: the broadcast and sequence email renderers with the
 * Liquid engine and the HTML reader of its own. It says when it is ready; a job's context arrives once, then
 * requests, answered one at a time and in order, each with its result or the reason it failed.
 * Never started directly.
 */
import { parentPort } from 'node:worker_threads';
// The renderer's file alone, not the whole of core (docs/broadcasts-and-sending.md, "Memory").
import { BroadcastRenderer } from '@mailcast/core/sending/broadcast-renderer';
import { SequenceEmailRenderer } from '@mailcast/core/sequences/sequence-email';
import { Htmlparser2Reader } from './htmlparser2-reader';
import { LiquidTemplates } from './liquid-templates';
import type { RenderThreadReply } from './render-threads';
import type { RenderRequest, RenderThreadRequest } from './threaded-broadcast-rendering';

const port = parentPort!;
const templates = new LiquidTemplates();
const reader = new Htmlparser2Reader();
const jobs = new Map<number, BroadcastRenderer>();
const steps = new Map<number, SequenceEmailRenderer>();

async function answer(request: RenderRequest): Promise<unknown> {
  if (request.kind === 'links') return BroadcastRenderer.trackableLinks(request.broadcast, reader);
  if (request.kind === 'sequence') {
    const step = steps.get(request.jobId);
    if (step === undefined) throw new Error('the rendering thread does not know this sequence step');
    return step.render(request.email);
  }
  const renderer = jobs.get(request.jobId);
  if (renderer === undefined) throw new Error('the rendering thread does not know this job');
  return renderer.render(request.recipient);
}

async function handle(request: RenderThreadRequest): Promise<void> {
  if (request.kind === 'job') {
    jobs.set(request.jobId, BroadcastRenderer.forJob(request.job, templates, reader));
    return;
  }
  if (request.kind === 'sequence-job') {
    steps.set(request.jobId, new SequenceEmailRenderer(request.job, templates, reader));
    return;
  }
  if (request.kind === 'drop') {
    jobs.delete(request.jobId);
    steps.delete(request.jobId);
    return;
  }
  const { id } = request;
  try {
    port.postMessage({ id, ok: true, value: await answer(request) } satisfies RenderThreadReply);
  } catch (error) {
    port.postMessage({ id, ok: false, message: error instanceof Error ? error.message : String(error) } satisfies RenderThreadReply);
  }
}

// In the order they came: the main side times each request from the answer before it.
let queue = Promise.resolve();
port.on('message', (request: RenderThreadRequest) => {
  queue = queue.then(() => handle(request));
});

port.postMessage({ ready: true } satisfies RenderThreadReply);
