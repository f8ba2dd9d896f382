/**
 * The webhook thread of a ThreadedWebhookSender: a GotWebhookSender of its own, fed batches of
 * signed deliveries through the thread's port; results go back in batches, one per turn of its
 * event loop. Never started directly.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { GotWebhookSender, type WebhookHttpOptions } from './got-webhook-sender';
import type { WebhookThreadReply, WebhookThreadRequest } from './threaded-webhook-sender';

const port = parentPort!;
const sender = new GotWebhookSender(workerData as WebhookHttpOptions);
let results: WebhookThreadReply['results'] = [];
let inFlight = 0;
let closing = false;

function reply(): void {
  if (results.length > 0) port.postMessage({ results } satisfies WebhookThreadReply);
  results = [];
  if (closing && inFlight === 0) port.close();
}

port.on('message', (request: WebhookThreadRequest) => {
  if (request.kind === 'close') {
    closing = true;
    if (inFlight === 0) reply();
    return;
  }
  for (const { id, post } of request.posts) {
    inFlight++;
    void sender
      .post(post)
      // post() answers trouble as a result; anything thrown is still one delivery's failure.
      .catch((error: unknown) => ({ kind: 'failed' as const, reason: 'network' as const, message: error instanceof Error ? error.message : String(error) }))
      .then((result) => {
        inFlight--;
        if (results.push({ id, result }) === 1) setImmediate(reply);
      });
  }
});
