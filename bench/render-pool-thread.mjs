// @ts-check
/**
 * The piscina side of bench/render-pool.ts: one task renders one recipient of a job with the
 * built BroadcastRenderer, as packages/adapters/src/templates/render-thread.ts does. Piscina has
 * no message to one chosen thread, so a job's context cannot be sent once per thread ahead of its
 * renders: a thread that does not hold the job answers `{ missing: true }` and is asked again
 * with the job (one more round trip per job and thread), and keeps the last few jobs it was given.
 * A render that fails answers why, so that a rejected task always means a stopped or dead thread.
 */
import { createRequire } from 'node:module';

const require = createRequire(new URL('../packages/adapters/dist/index.js', import.meta.url));
const { BroadcastRenderer } = require('@mailcast/core/sending/broadcast-renderer');
const { LiquidTemplates } = require('./templates/liquid-templates');
const { Htmlparser2Reader } = require('./templates/htmlparser2-reader');

const templates = new LiquidTemplates();
const reader = new Htmlparser2Reader();
/** @type {Map<number, any>} */
const jobs = new Map();
const KEPT_JOBS = 16;

/** @param {{ jobId: number; job?: unknown; recipient: unknown } | { ping: true }} task */
export default async function render(task) {
  // The first task of a thread: it has loaded its script.
  if ('ping' in task) return { pong: true };
  const { jobId, job, recipient } = task;
  let renderer = jobs.get(jobId);
  if (renderer === undefined) {
    if (job === undefined) return { missing: true };
    renderer = BroadcastRenderer.forJob(job, templates, reader);
    jobs.set(jobId, renderer);
    if (jobs.size > KEPT_JOBS) jobs.delete(jobs.keys().next().value);
  }
  try {
    return { value: await renderer.render(recipient) };
  } catch (error) {
    // A render's own failure is an answer; a rejected task means the thread was stopped or died.
    return { failed: error instanceof Error ? error.message : String(error) };
  }
}
