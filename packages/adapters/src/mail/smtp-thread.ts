/**
 * One SMTP thread of a ThreadedMailer: a NodemailerMailer of its own, fed batches of messages
 * through the thread's port; outcomes go back in batches, one per turn of its event loop.
 * Never started directly.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { MessageWithdrawn } from '@mailcast/core';
import { NodemailerMailer } from './nodemailer-mailer';
import type { SmtpThreadReply, SmtpThreadRequest } from './threaded-mailer';

const port = parentPort!;
const mailer = new NodemailerMailer((workerData as { connectionsPerServer: number }).connectionsPerServer);
let outcomes: SmtpThreadReply['outcomes'] = [];
let inFlight = 0;
let closing = false;
// The messages held, so that a withdrawal can reach the ones not yet started.
const held = new Map<number, AbortController>();

function reply(): void {
  if (outcomes.length > 0) port.postMessage({ outcomes } satisfies SmtpThreadReply);
  outcomes = [];
  if (closing && inFlight === 0) void mailer.close().then(() => port.close());
}

port.on('message', (request: SmtpThreadRequest) => {
  if (request.kind === 'close') {
    closing = true;
    if (inFlight === 0) reply();
    return;
  }
  if (request.kind === 'withdraw') {
    for (const id of request.ids) held.get(id)?.abort();
    return;
  }
  for (const { id, server, email } of request.sends) {
    inFlight++;
    const withdrawal = new AbortController();
    held.set(id, withdrawal);
    void mailer
      .send(server, email, withdrawal.signal)
      .catch((error: unknown) => {
        if (error instanceof MessageWithdrawn) return null;
        throw error;
      })
      .then((outcome) => {
        inFlight--;
        held.delete(id);
        if (outcomes.push({ id, outcome }) === 1) setImmediate(reply);
      });
  }
});
