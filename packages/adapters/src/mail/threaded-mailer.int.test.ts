import type { EmailServer, OutgoingEmail } from '@mailcast/core';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { anEmailServer } from '@mailcast/testkit';
import { ThreadedMailer } from './threaded-mailer';

/** The servers here listen on loopback (SMTP_ALLOW_PRIVATE). */
const LOOPBACK = { allowPrivate: true, allowPlaintext: false };

/**
 * What the ThreadedMailer does when a thread dies. The SMTP path itself runs through the real
 * thread script in nodemailer-mailer.int.test.ts; here a thread script that dies on demand
 * (process.exit in a worker ends that thread only) stands in for one that crashes.
 */
const DYING_THREAD = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (request) => {
  if (request.kind === 'close') return parentPort.close();
  for (const { id, email } of request.sends) {
    if (email.to.startsWith('die@')) process.exit(1);
    parentPort.postMessage({ outcomes: [{ id, outcome: { kind: 'accepted', response: '250 ' + email.to } }] });
  }
});
`;

describe('ThreadedMailer when a thread dies', () => {
  let dir: string;
  let script: string;
  const server: EmailServer = anEmailServer();
  const email = (to: string): OutgoingEmail => ({
    messageId: `<${to}>`,
    from: { email: 'news@example.com', name: null },
    to,
    replyTo: null,
    subject: 's',
    text: 't',
    html: null,
    headers: {},
  });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'mailcast-thread-'));
    script = path.join(dir, 'dying-thread.js');
    await writeFile(script, DYING_THREAD);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('answers the messages the thread held as a connection failure, then sends on a fresh thread', async () => {
    const mailer = new ThreadedMailer({ threads: 1, connectionsPerServer: 1, script, addresses: LOOPBACK });
    try {
      await expect(mailer.send(server, email('a@example.com'))).resolves.toEqual({ kind: 'accepted', response: '250 a@example.com' });
      // Handed over in the same turn: one batch, which the thread dies in the middle of.
      const outcomes = await Promise.all([mailer.send(server, email('die@example.com')), mailer.send(server, email('b@example.com'))]);
      for (const outcome of outcomes) {
        expect(outcome).toEqual({ kind: 'rejected', permanent: false, code: null, message: 'the SMTP thread stopped' });
      }
      await expect(mailer.send(server, email('c@example.com'))).resolves.toEqual({ kind: 'accepted', response: '250 c@example.com' });
    } finally {
      await mailer.close();
    }
  });

  it('answers sends after close as failures without a thread', async () => {
    const mailer = new ThreadedMailer({ threads: 2, connectionsPerServer: 1, script, addresses: LOOPBACK });
    await mailer.close();
    await expect(mailer.send(server, email('late@example.com'))).resolves.toMatchObject({ kind: 'rejected', permanent: false, code: null });
  });

  it('keeps the process alive while a thread holds messages, and not once it is idle', async () => {
    // An SMTP server that says nothing for 400 ms, then hangs up: the send's only outcome.
    const silent = net.createServer((socket) => setTimeout(() => socket.destroy(), 400));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const child = path.join(dir, 'unclosed.js');
    // Never closes its mailer and has nothing else to wait for.
    await writeFile(
      child,
      `const { ThreadedMailer } = require(${JSON.stringify(path.resolve(__dirname, '../../dist/mail/threaded-mailer.js'))});
       new ThreadedMailer({ threads: 1, connectionsPerServer: 1, addresses: { allowPrivate: true, allowPlaintext: false } })
         .send({ id: 1, host: '127.0.0.1', port: ${port}, tls: 'none', updatedAt: new Date(0) }, ${JSON.stringify(email('x@example.com'))})
         .then((outcome) => console.log(String(outcome.message).startsWith('the SMTP thread') ? outcome.message : outcome.kind));`,
    );
    try {
      // Timed on a monotonic clock, as the server's timer is. Without the server's updatedAt the
      // thread failed at once, and only the child's start-up time kept this above 400 ms.
      const started = performance.now();
      const { stdout } = await promisify(execFile)(process.execPath, [child], { timeout: 20_000 });
      // The silent server's hang-up, not a thread that failed on the request.
      expect(stdout.trim()).toBe('rejected');
      expect(performance.now() - started).toBeGreaterThanOrEqual(400);
    } finally {
      silent.close();
    }
  });
});
