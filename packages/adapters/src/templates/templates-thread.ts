/**
 * One thread of ThreadedTemplates: the Liquid engine alone. It says when it is ready, then
 * answers each request (the parts of one email and their scope) in the order they came, with the
 * rendered parts or the reason they failed. Never started directly.
 */
import { parentPort } from 'node:worker_threads';
import { LiquidTemplates } from './liquid-templates';
import type { RenderThreadReply } from './render-threads';
import type { TemplatesRequest } from './threaded-templates';

const port = parentPort!;
const templates = new LiquidTemplates();

// Synchronous, so answers leave in the order requests came (the main side times each from the
// answer before it).
port.on('message', ({ id, parts, scope }: TemplatesRequest & { id: number }) => {
  let reply: RenderThreadReply;
  try {
    reply = { id, ok: true, value: templates.renderParts(parts, scope) };
  } catch (error) {
    reply = { id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});

port.postMessage({ ready: true } satisfies RenderThreadReply);
