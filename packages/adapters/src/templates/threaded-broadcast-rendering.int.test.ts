import { InProcessBroadcastRendering, type Broadcast, type RenderingJob } from '@mailcast/core';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Htmlparser2Reader } from './htmlparser2-reader';
import { LiquidTemplates } from './liquid-templates';
import { aBroadcast, subscriber } from './test-support/broadcasts';
import { ThreadedBroadcastRendering, type ThreadedRenderingOptions } from './threaded-broadcast-rendering';

/**
 * Broadcast rendering on worker threads (docs/security.md "HTML"): the built render-thread.js
 * renders as the in-process renderer does, and a request past the time limit or a thread past
 * its heap fails alone, its thread replaced.
 */
const inProcess = new InProcessBroadcastRendering(new LiquidTemplates(), new Htmlparser2Reader());
const SECRET = new Uint8Array(32).fill(7);
const BOUNDS: ThreadedRenderingOptions = { threads: 1, heapMb: 64, timeLimitMs: 2_000 };

async function jobFor(broadcast: Broadcast): Promise<RenderingJob> {
  const links = (await inProcess.trackableLinks(broadcast)).map((l, i) => ({ id: i + 1, ...l }));
  return { broadcast, links, trackingSecret: SECRET, publicUrl: 'https://mail.example.test' };
}

describe('ThreadedBroadcastRendering with the built thread script', () => {
  let rendering: ThreadedBroadcastRendering;
  afterEach(async () => rendering.close());

  it('renders and finds links as the in-process renderer does, hostile bodies included', async () => {
    rendering = new ThreadedBroadcastRendering({ ...BOUNDS, threads: 2 });
    const broadcasts = [
      aBroadcast({
        preheader: 'Soon & now',
        emailHeaders: [{ key: 'X-Campaign', value: 'c1' }],
        htmlBody: '<html><body><p>Hello {{ subscriber.first_name }}, <a href="https://x.test/a?b=1&amp;c=2">read</a></p></body></html>',
      }),
      aBroadcast({ body: 'Plain {{ subscriber.first_name }} https://x.test/plain' }),
      aBroadcast({ htmlBody: '<p>Hi {{ subscriber.first_name }}</p>' + '<a href="'.repeat(1000) }),
      aBroadcast({ htmlBody: '<p>Hi {{ subscriber.first_name }}</p>' + '<a'.repeat(250_000) }),
    ];
    for (const broadcast of broadcasts) {
      expect(await rendering.trackableLinks(broadcast)).toEqual(await inProcess.trackableLinks(broadcast));
      const job = await jobFor(broadcast);
      const [threaded, local] = [rendering.forJob(job), inProcess.forJob(job)];
      const recipients = [1, 2, 3].map((id) => ({ recipientId: 100 + id, subscriber: subscriber(id, `N${id}`) }));
      // Both threads at once: each gets the job's context the first time it renders for the job.
      const rendered = await Promise.all(recipients.map((r) => threaded.render(r)));
      expect(rendered).toEqual(await Promise.all(recipients.map((r) => local.render(r))));
      threaded.close();
    }
  });

  it("answers a render's failure with its reason, and renders on", async () => {
    rendering = new ThreadedBroadcastRendering(BOUNDS);
    const job = rendering.forJob(await jobFor(aBroadcast({ subject: '{{ subscriber.custom_data.pad }}', htmlBody: '<p>x</p>' })));
    const long = { ...subscriber(1), customData: { pad: 'x'.repeat(2_000) } };
    await expect(job.render({ recipientId: 1, subscriber: long })).rejects.toThrow('the rendered subject is longer than 998 characters');
    await expect(job.render({ recipientId: 2, subscriber: { ...subscriber(2), customData: { pad: 'ok' } } })).resolves.toMatchObject({ subject: 'ok' });
  });

  it('refuses renders of a closed job, and everything once closed', async () => {
    rendering = new ThreadedBroadcastRendering(BOUNDS);
    const job = rendering.forJob(await jobFor(aBroadcast({ htmlBody: '<p>x</p>' })));
    await job.render({ recipientId: 1, subscriber: subscriber(1) });
    job.close();
    await expect(job.render({ recipientId: 2, subscriber: subscriber(2) })).rejects.toThrow('the sending job has ended');
    const other = rendering.forJob(await jobFor(aBroadcast({ htmlBody: '<p>y</p>' })));
    const waiting = Promise.allSettled([1, 2, 3].map((id) => other.render({ recipientId: id, subscriber: subscriber(id) })));
    await rendering.close();
    for (const render of await waiting) expect(render).toEqual({ status: 'rejected', reason: new Error('the rendering threads are closed') });
    await expect(rendering.trackableLinks(aBroadcast({ htmlBody: '<p>z</p>' }))).rejects.toThrow('the rendering threads are closed');
  });
});

/**
 * A thread script that, for a recipient named "heap", allocates until its heap limit stops it,
 * for one named "hang" never ends, and otherwise answers with how many job contexts it has
 * been sent.
 */
const HOSTILE_THREAD = `
const { parentPort } = require('node:worker_threads');
let contexts = 0;
parentPort.on('message', (request) => {
  if (request.kind === 'job') return void contexts++;
  if (request.kind !== 'render') return;
  if (request.recipient.subscriber.firstName === 'heap') {
    const hoard = [];
    for (;;) hoard.push(new Array(100_000).fill(hoard.length));
  }
  if (request.recipient.subscriber.firstName === 'hang') for (;;);
  parentPort.postMessage({ id: request.id, ok: true, value: { contexts } });
});
parentPort.postMessage({ ready: true });
`;

describe('ThreadedBroadcastRendering when a thread dies', () => {
  let dir: string;
  let script: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'mailcast-render-'));
    script = path.join(dir, 'hostile-thread.js');
    await writeFile(script, HOSTILE_THREAD);
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it("fails a render past the time limit and, without trying them, the job's other recipients; another job renders on the fresh thread", async () => {
    const rendering = new ThreadedBroadcastRendering({ threads: 1, heapMb: 64, timeLimitMs: 200, script });
    try {
      const job = rendering.forJob(await jobFor(aBroadcast({ htmlBody: '<p>x</p>' })));
      const [hung, waited] = await Promise.allSettled([
        job.render({ recipientId: 1, subscriber: subscriber(1, 'hang') }),
        job.render({ recipientId: 2, subscriber: subscriber(2) }),
      ]);
      const given = new Error("not tried: an earlier recipient's render failed (the render took longer than 200 ms)");
      expect(hung).toEqual({ status: 'rejected', reason: new Error('the render took longer than 200 ms') });
      expect(waited).toEqual({ status: 'rejected', reason: given });
      await expect(job.render({ recipientId: 3, subscriber: subscriber(3) })).rejects.toEqual(given);
      // The fresh thread was sent the other job's context before its first render.
      const other = rendering.forJob(await jobFor(aBroadcast({ id: 2, htmlBody: '<p>y</p>' })));
      await expect(other.render({ recipientId: 4, subscriber: subscriber(4) })).resolves.toEqual({ contexts: 1 });
    } finally {
      await rendering.close();
    }
  });

  it("fails the render that reached the heap limit, and the job's other recipients with it", async () => {
    const rendering = new ThreadedBroadcastRendering({ threads: 1, heapMb: 16, timeLimitMs: 60_000, script });
    try {
      const job = rendering.forJob(await jobFor(aBroadcast({ htmlBody: '<p>x</p>' })));
      await expect(job.render({ recipientId: 1, subscriber: subscriber(1) })).resolves.toEqual({ contexts: 1 });
      const [dead, next] = await Promise.allSettled([
        job.render({ recipientId: 3, subscriber: subscriber(3, 'heap') }),
        job.render({ recipientId: 4, subscriber: subscriber(4) }),
      ]);
      expect(dead.status === 'rejected' && String(dead.reason)).toMatch(/^Error: the rendering thread failed: .*memory limit/);
      expect(next.status === 'rejected' && String(next.reason)).toMatch(
        /^Error: not tried: an earlier recipient's render failed \(the rendering thread failed: .*memory limit/,
      );
      const other = rendering.forJob(await jobFor(aBroadcast({ id: 2, htmlBody: '<p>y</p>' })));
      await expect(other.render({ recipientId: 5, subscriber: subscriber(5) })).resolves.toEqual({ contexts: 1 });
    } finally {
      await rendering.close();
    }
  });

  // Issue 34, finding 1: renders waiting for the thread were served first come, first served
  // across every broadcast of every channel.
  it("serves channels in turn: one channel's hostile broadcasts delay another's render by one time limit", async () => {
    const rendering = new ThreadedBroadcastRendering({ threads: 1, heapMb: 64, timeLimitMs: 200, script });
    try {
      const settled: string[] = [];
      const hostile = await Promise.all(
        [1, 2, 3, 4, 5, 6].map(async (id) => rendering.forJob(await jobFor(aBroadcast({ id, channelId: 1, htmlBody: '<p>x</p>' })))),
      );
      const healthy = rendering.forJob(await jobFor(aBroadcast({ id: 7, channelId: 2, htmlBody: '<p>y</p>' })));
      const attacks = hostile.map((job, i) =>
        job.render({ recipientId: i + 1, subscriber: subscriber(i + 1, 'hang') }).catch((error: Error) => settled.push(`hostile: ${error.message}`)),
      );
      const answer = await healthy.render({ recipientId: 100, subscriber: subscriber(100) });
      settled.push('healthy');
      await Promise.all(attacks);
      expect(answer).toEqual({ contexts: 1 });
      // Four were on the thread already: the first fails at the limit, then it is channel 2's turn.
      expect(settled.slice(0, 2)).toEqual(['hostile: the render took longer than 200 ms', 'healthy']);
      expect(settled).toHaveLength(7);
    } finally {
      await rendering.close();
    }
  });
});
