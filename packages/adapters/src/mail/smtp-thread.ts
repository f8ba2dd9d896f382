/**
 * One SMTP thread of a ThreadedMailer: a NodemailerMailer of its own, fed batches of messages
 * through the thread's port; outcomes go back in batches, one per turn of its event loop.
 * Never started directly.
 */
import { parentPort, workerData } from 'node:worker_threads';
// The port's file alone: the whole of core (its use cases, tsyringe) would cost each thread's heap
// for nothing (docs/broadcasts-and-sending.md, "Memory").
import { MessageWithdrawn } from '@mailcast/send-engine';
import { NodemailerMailer } from './nodemailer-mailer';
import type { SmtpThreadData, SmtpThreadReply, SmtpThreadRequest } from './threaded-mailer';

const port = parentPort!;
const data = workerData as SmtpThreadData;
const mailer = new NodemailerMailer(data.addresses, data.connectionsPerServer);
let outcomes: SmtpThreadReply['outcomes'] = [];
let inFlight = 0;
let closing = false;
// The messages held, so that a withdrawal can reach the ones not yet started.
const held = new Map<number, AbortController>();
// Messages whose content waits for its clearance from the other side, and those to ask for.
const waiting = new Map<number, { give: () => void; refuse: () => void }>();
let asking: number[] = [];

function reply(): void {
  if (outcomes.length > 0 || asking.length > 0) port.postMessage({ outcomes, clearances: asking } satisfies SmtpThreadReply);
  outcomes = [];
  asking = [];
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
  if (request.kind === 'clearance') {
    for (const id of request.given) waiting.get(id)?.give();
    for (const id of request.refused) waiting.get(id)?.refuse();
    return;
  }
  for (const { id, server, email, cleared } of request.sends) {
    inFlight++;
    const withdrawal = new AbortController();
    held.set(id, withdrawal);
    // A refused clearance: the other side knows why, and rejects the message's send with it.
    const clearance = cleared
      ? () =>
          new Promise<void>((give, refuse) => {
            waiting.set(id, { give, refuse: () => refuse(new MessageWithdrawn()) });
            if (asking.push(id) === 1 && outcomes.length === 0) setImmediate(reply);
          })
      : undefined;
    void mailer
      .send(server, email, withdrawal.signal, clearance)
      .catch((error: unknown) => {
        if (error instanceof MessageWithdrawn) return null;
        throw error;
      })
      .then((outcome) => {
        inFlight--;
        held.delete(id);
        waiting.delete(id);
        if (outcomes.push({ id, outcome }) === 1) setImmediate(reply);
      });
  }
});
