import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The bounds of threads started with startThread, measured in a fresh node process (the built
 * threads.js, as the dispatcher runs it): a test process's own heap has long grown. Each side
 * allocates short-lived garbage, and reports the largest new space it saw, in MB.
 */
const THREADS = path.resolve(__dirname, '../../dist/system/threads.js');
const GARBAGE = `
const v8 = require('node:v8');
function largestNewSpaceMb() {
  const ring = new Array(2000);
  let largest = 0;
  for (let i = 0; i < 3e6; i++) {
    ring[i % ring.length] = { s: 'x' + i, a: [i, i] };
    if (i % 5000 === 0) largest = Math.max(largest, v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);
  }
  return largest / 2 ** 20;
}`;
const SCRIPT = `
${GARBAGE}
const { keepHeapFlags, startThread } = require(${JSON.stringify(THREADS)});
if (process.env.KEEP === '1') keepHeapFlags(['--semi-space-growth-factor=1']);
if (process.env.KEEP === 'min') {
  const flags = ['--semi-space-growth-factor=1', '--min-semi-space-size=2'];
  for (const flag of flags) require('node:v8').setFlagsFromString(flag);
  keepHeapFlags(flags);
}
const THREAD = ${JSON.stringify(`${GARBAGE}; require('node:worker_threads').parentPort.postMessage(largestNewSpaceMb());`)};
const worker = startThread(THREAD, Number(process.env.YOUNG), { eval: true });
// BESIDE: a second thread of that many MB, started right after, before the first is online.
const beside = process.env.BESIDE ? startThread(THREAD, Number(process.env.BESIDE), { eval: true }) : undefined;
beside?.once('message', (mb) => console.error(JSON.stringify({ besideMb: mb })));
worker.once('message', (threadMb) => {
  // After the thread is online: V8 has configured its isolate (and reset the growth factor).
  console.log(JSON.stringify({ threadMb, limit: worker.resourceLimits.maxYoungGenerationSizeMb, mainMb: largestNewSpaceMb() }));
});
`;

async function run(keep: boolean | 'min', youngMb = 6, besideMb?: number): Promise<{ threadMb: number; limit: number; mainMb: number; besideMb?: number }> {
  const env = {
    ...process.env,
    KEEP: keep === 'min' ? 'min' : keep ? '1' : '0',
    YOUNG: String(youngMb),
    BESIDE: besideMb === undefined ? '' : String(besideMb),
  };
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['-e', SCRIPT], { env });
  const beside = stderr.trim() === '' ? {} : (JSON.parse(stderr) as { besideMb: number });
  return { ...(JSON.parse(stdout) as { threadMb: number; limit: number; mainMb: number }), ...beside };
}

describe('startThread', () => {
  it("bounds the thread's young generation: two semi-spaces of at most a third of it", async () => {
    const { threadMb, limit } = await run(false);
    expect(limit).toBe(6);
    expect(threadMb).toBeLessThanOrEqual(4);
  });

  it("keeps the process's heap flags after a thread comes online (V8 resets the growth factor then)", async () => {
    // Without keepHeapFlags the main thread's young generation grows past the bound once the
    // thread is configured: the control that shows the reset this guards against.
    expect((await run(false)).mainMb).toBeGreaterThan(2);
    expect((await run(true)).mainMb).toBeLessThanOrEqual(2);
  });

  it('starts a thread at its bound while the process keeps its young generations at their first size', async () => {
    // A growth factor of 1 never grows a semi-space: the webhook thread (24 MB) would stay at the
    // process's 2 MB minimum. new_space is both semi-spaces: 2 × 8 MB, and 2 × 2 MB for a 6 MB thread.
    const webhookSized = await run('min', 24);
    expect(webhookSized.limit).toBe(24);
    expect(webhookSized.threadMb).toBe(16);
    expect((await run('min', 6)).threadMb).toBe(4);
  });

  it('starts each of two threads started together at its own bound', async () => {
    // The smaller one, started while the larger is not yet online, must not lower the minimum
    // the larger starts at; and is itself held to its own bound.
    const both = await run('min', 24, 6);
    expect(both.threadMb).toBe(16);
    expect(both.besideMb).toBe(4);
  });
});

/** What a thread script loads, listed from inside a worker that requires it (the built scripts). */
async function modulesLoadedBy(script: string): Promise<string[]> {
  const inWorker = `
    const { Worker } = require('node:worker_threads');
    const worker = new Worker(${JSON.stringify(`
      const before = new Set(Object.keys(require.cache));
      require(SCRIPT);
      console.log(JSON.stringify(Object.keys(require.cache).filter((file) => !before.has(file))));
      process.exit(0);`)}.replace('SCRIPT', JSON.stringify(process.env.SCRIPT)), { eval: true, workerData: { connectionsPerServer: 1 } });`;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', inWorker], { env: { ...process.env, SCRIPT: script } });
  return JSON.parse(stdout) as string[];
}

describe('the thread scripts', () => {
  it.each([
    ['mail/smtp-thread.js', 'send-engine'],
    ['templates/render-thread.js', 'core'],
  ])('%s loads single files of %s, not core’s index or tsyringe', async (script, pkg) => {
    const loaded = await modulesLoadedBy(path.resolve(__dirname, '../../dist', script));
    expect(loaded.some((file) => file.includes(path.join('packages', pkg, 'dist')))).toBe(true);
    expect(
      loaded.filter((file) => file.endsWith(path.join('packages', 'core', 'dist', 'index.js')) || file.includes(`${path.sep}tsyringe${path.sep}`)),
    ).toEqual([]);
  });

  it('http/webhook-thread.js loads its sender and nothing of core (got comes with the first POST)', async () => {
    const loaded = await modulesLoadedBy(path.resolve(__dirname, '../../dist/http/webhook-thread.js'));
    expect(loaded.some((file) => file.endsWith(path.join('http', 'got-webhook-sender.js')))).toBe(true);
    expect(loaded.filter((file) => file.includes(path.join('packages', 'core')) || file.includes(`${path.sep}tsyringe${path.sep}`))).toEqual([]);
  });
});
