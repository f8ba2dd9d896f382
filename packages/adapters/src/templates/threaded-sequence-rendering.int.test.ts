import { InProcessBroadcastRendering, type SequenceStepJob } from '@mailcast/core';
import { linkIdentifier, type StepSettings } from '@mailcast/domain';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Htmlparser2Reader } from './htmlparser2-reader';
import { LiquidTemplates } from './liquid-templates';
import { subscriber } from './test-support/broadcasts';
import { ThreadedBroadcastRendering, type ThreadedRenderingOptions } from './threaded-broadcast-rendering';

/**
 * Sequence emails on the render threads (docs/sequences.md, "Rendering"): the built
 * render-thread.js renders a step as the in-process renderer does, and an email whose render
 * stops a thread fails, with the step's other emails of the turn, as a broadcast's recipients do.
 */
const inProcess = new InProcessBroadcastRendering(new LiquidTemplates(), new Htmlparser2Reader());
const BOUNDS: ThreadedRenderingOptions = { threads: 1, heapMb: 64, timeLimitMs: 2_000 };

function aStep(settings: StepSettings, overrides: Partial<SequenceStepJob> = {}): SequenceStepJob {
  const links = ['https://x.test/a?b=1&c=2', 'https://x.test/plain'].map((url) => ({ url, identifier: linkIdentifier(url) }));
  return {
    channelId: 1,
    sequence: { id: 9, label: 'Welcome', trackOpens: true },
    stepId: 31,
    settings,
    links,
    secret: new Uint8Array(32).fill(5),
    publicUrl: 'https://mail.example.test/',
    ...overrides,
  };
}

describe('Sequence emails on the built render thread', () => {
  let rendering: ThreadedBroadcastRendering;
  afterEach(async () => rendering.close());

  it('renders each step as the in-process renderer does: tracked links, pixel, preheader, footer, headers', async () => {
    rendering = new ThreadedBroadcastRendering({ ...BOUNDS, threads: 2 });
    const steps = [
      aStep({
        subject: 'Hi {{ subscriber.first_name }} of {{ sequence.label }}',
        preheader: 'Soon & now',
        html_body: '<html><body><p>Hello {{ subscriber.first_name }}, <a href="https://x.test/a?b=1&amp;c=2">read</a> {{ preferences_url }}</p></body></html>',
        body: 'Own text {{ subscriber.email }}',
      }),
      aStep(
        { subject: 'Plain', body: 'Plain {{ subscriber.first_name }} https://x.test/plain' },
        { sequence: { id: 9, label: 'W', trackOpens: false }, links: [] },
      ),
    ];
    for (const step of steps) {
      const [threaded, local] = [rendering.forStep(step), inProcess.forStep(step)];
      const emails = [1, 2, 3].map((id) => ({ enrolmentId: 700 + id, subscriber: subscriber(id, `N${id}`) }));
      const rendered = await Promise.all(emails.map((e) => threaded.render(e)));
      expect(rendered).toEqual(await Promise.all(emails.map((e) => local.render(e))));
      threaded.close();
    }
    const first = await rendering.forStep(steps[0]!).render({ enrolmentId: 701, subscriber: subscriber(1, 'Ann') });
    expect(first.subject).toBe('Hi Ann of Welcome');
    expect(first.html).toMatch(/href="https:\/\/mail\.example\.test\/t\/c\/q701\.31-[^/"]+\/[^"]+"/);
    expect(first.html).toMatch(/src="https:\/\/mail\.example\.test\/t\/o\/q701\.31-/);
    expect(first.html).toContain('https://mail.example.test/preferences/q701.31-');
    expect(first.headers['List-Unsubscribe']).toMatch(/^<https:\/\/mail\.example\.test\/u\/q701\.31-/);
  });

  it("answers an email's failure with its reason, and renders the step's next one", async () => {
    rendering = new ThreadedBroadcastRendering(BOUNDS);
    const step = rendering.forStep(aStep({ subject: '{{ subscriber.custom_data.pad }}', html_body: '<p>x</p>' }));
    const long = { ...subscriber(1), customData: { pad: 'x'.repeat(2_000) } };
    await expect(step.render({ enrolmentId: 1, subscriber: long })).rejects.toThrow('the rendered subject is longer than 998 characters');
    await expect(step.render({ enrolmentId: 2, subscriber: { ...subscriber(2), customData: { pad: 'ok' } } })).resolves.toMatchObject({ subject: 'ok' });
    step.close();
    await expect(step.render({ enrolmentId: 3, subscriber: subscriber(3) })).rejects.toThrow('the sending job has ended');
  });
});

/** A thread script that never ends a sequence email for "hang", else answers how many step contexts it holds. */
const HANGING_THREAD = `
const { parentPort } = require('node:worker_threads');
let contexts = 0;
parentPort.on('message', (request) => {
  if (request.kind === 'sequence-job') return void contexts++;
  if (request.kind !== 'sequence') return;
  if (request.email.subscriber.firstName === 'hang') for (;;);
  parentPort.postMessage({ id: request.id, ok: true, value: { contexts } });
});
parentPort.postMessage({ ready: true });
`;

describe('Sequence emails when a render thread is stopped', () => {
  let dir: string;
  let script: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'mailcast-seq-render-'));
    script = path.join(dir, 'hanging-thread.js');
    await writeFile(script, HANGING_THREAD);
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it("fails the email past the time limit and the step's others of the turn untried; another step renders on the fresh thread", async () => {
    const rendering = new ThreadedBroadcastRendering({ threads: 1, heapMb: 64, timeLimitMs: 200, script });
    try {
      const step = rendering.forStep(aStep({ subject: 'x', html_body: '<p>x</p>' }));
      const [hung, waited] = await Promise.allSettled([
        step.render({ enrolmentId: 1, subscriber: subscriber(1, 'hang') }),
        step.render({ enrolmentId: 2, subscriber: subscriber(2) }),
      ]);
      const given = new Error("not tried: an earlier recipient's render failed (the render took longer than 200 ms)");
      expect(hung).toEqual({ status: 'rejected', reason: new Error('the render took longer than 200 ms') });
      expect(waited).toEqual({ status: 'rejected', reason: given });
      await expect(step.render({ enrolmentId: 3, subscriber: subscriber(3) })).rejects.toEqual(given);
      const other = rendering.forStep(aStep({ subject: 'y', html_body: '<p>y</p>' }, { stepId: 32 }));
      await expect(other.render({ enrolmentId: 4, subscriber: subscriber(4) })).resolves.toEqual({ contexts: 1 });
    } finally {
      await rendering.close();
    }
  });
});
