import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { WEBHOOK_USER_AGENT } from './got-webhook-sender';
import { ThreadedWebhookSender } from './threaded-webhook-sender';

/** The built thread script: `npm test` builds first, as for the SMTP thread. */
const REAL_SCRIPT = path.resolve(__dirname, '../../dist/http/webhook-thread.js');

/** A real receiver on loopback: answers with the status the body asks for, after `delayMs`. */
async function receiver(delayMs = 0) {
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.push(body);
      const { status } = JSON.parse(body) as { status: number };
      setTimeout(() => res.writeHead(status, { 'content-type': 'text/plain' }).end(`${status} ${req.headers['user-agent']}`), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('ThreadedWebhookSender: webhook POSTs on a thread of their own', () => {
  it('posts each delivery byte for byte and answers each with its own result, many at once', async () => {
    const hook = await receiver();
    const sender = new ThreadedWebhookSender({ timeoutMs: 5000, allowPrivate: true }, REAL_SCRIPT);
    try {
      const statuses = Array.from({ length: 200 }, (_, i) => [200, 204, 410, 500][i % 4]!);
      const results = await Promise.all(
        statuses.map((status, i) => sender.post({ url: hook.url, body: JSON.stringify({ status, n: i, text: 'é📨' }), headers: { 'x-n': String(i) } })),
      );
      results.forEach((result, i) => {
        const status = statuses[i]!;
        expect(result).toEqual({ kind: 'response', status, body: status === 204 ? '' : `${status} ${WEBHOOK_USER_AGENT}` });
      });
      expect(hook.bodies.sort()).toEqual(statuses.map((status, i) => JSON.stringify({ status, n: i, text: 'é📨' })).sort());
    } finally {
      await sender.close();
      await hook.close();
    }
  });

  it('keeps the destination policy and the time-out on the thread', async () => {
    const slow = await receiver(2000);
    const guarded = new ThreadedWebhookSender({ timeoutMs: 300, allowPrivate: false }, REAL_SCRIPT);
    const open = new ThreadedWebhookSender({ timeoutMs: 300, allowPrivate: true }, REAL_SCRIPT);
    try {
      const refused = await guarded.post({ url: 'https://127.0.0.1/hooks', body: '{"status":200}', headers: {} });
      expect(refused).toMatchObject({ kind: 'failed', reason: 'refused_destination' });
      const timedOut = await open.post({ url: slow.url, body: '{"status":200}', headers: {} });
      expect(timedOut).toMatchObject({ kind: 'failed', reason: 'timeout' });
    } finally {
      await Promise.all([guarded.close(), open.close()]);
      await slow.close();
    }
  });

  it('answers what a dead thread held as a network failure, and starts a new thread for the next delivery', async () => {
    const hook = await receiver();
    // The real thread, which ends the moment it is handed a delivery whose body is "die".
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcast-webhook-thread-'));
    const script = path.join(dir, 'dying-thread.js');
    writeFileSync(
      script,
      `require('node:worker_threads').parentPort.on('message', (m) => {
         if (m.kind === 'post' && m.posts.some((p) => p.post.body === 'die')) process.exit(3);
       });
       require(${JSON.stringify(REAL_SCRIPT)});`,
    );
    const sender = new ThreadedWebhookSender({ timeoutMs: 5000, allowPrivate: true }, script);
    try {
      const [died, beside] = await Promise.all([
        sender.post({ url: hook.url, body: 'die', headers: {} }),
        sender.post({ url: hook.url, body: '{"status":200}', headers: {} }),
      ]);
      expect(died).toEqual({ kind: 'failed', reason: 'network', message: 'the webhook thread stopped' });
      expect(beside).toEqual(died);
      expect(hook.bodies).toEqual([]);
      const next = await sender.post({ url: hook.url, body: '{"status":202}', headers: {} });
      expect(next).toMatchObject({ kind: 'response', status: 202 });
    } finally {
      await sender.close();
      await hook.close();
    }
  });

  it('on close, waits for the deliveries in flight, then refuses new ones', async () => {
    const slow = await receiver(300);
    const sender = new ThreadedWebhookSender({ timeoutMs: 5000, allowPrivate: true }, REAL_SCRIPT);
    try {
      const inFlight = sender.post({ url: slow.url, body: '{"status":200}', headers: {} });
      let answered = false;
      void inFlight.then(() => (answered = true));
      await sender.close();
      expect(answered).toBe(true);
      await expect(inFlight).resolves.toMatchObject({ kind: 'response', status: 200 });
      await expect(sender.post({ url: slow.url, body: '{"status":200}', headers: {} })).resolves.toEqual({
        kind: 'failed',
        reason: 'network',
        message: 'the webhook sender is closed',
      });
      expect(slow.bodies).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });
});
