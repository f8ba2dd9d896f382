import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@mailcast/testkit';

/**
 * docs/operations.md, end to end on the built product: `npm start` brings up the embedded database,
 * migrations, api, dispatcher and capture server, seeds a channel and prints a token; the admin
 * CLI works against the same embedded database while it runs; Ctrl-C (SIGINT) stops it all;
 * a second start reuses the data.
 */
const ROOT = path.resolve(__dirname, '../../..');
const run = promisify(execFile);

describe('npm start (development all-in-one)', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let apiPort: number;

  beforeAll(async () => {
    if (!existsSync(path.join(ROOT, 'apps/dev/dist/main.js'))) {
      throw new Error('the product is not built: `npm test` builds it first (npm run build)');
    }
    // The postgres system user must be able to reach the data directory.
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'mailcast-start-'));
    await chmod(dataDir, 0o755);
    apiPort = await freePort();
    const { DATABASE_URL: _ignored, ...rest } = process.env;
    env = {
      ...rest,
      MAILCAST_DATA_DIR: dataDir,
      PORT: String(apiPort),
      SMTP_CAPTURE_PORT: String(await freePort()),
      MAILCAST_EMBEDDED_PG_PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
    };
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  function start(): { child: ChildProcess; output: () => string; ready: Promise<string> } {
    const child = spawn(process.execPath, ['apps/dev/dist/main.js'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const ready = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready in time:\n${output}`)), 60_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('ready. Ctrl-C stops everything.')) {
          clearTimeout(timer);
          resolve(output);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => reject(new Error(`exited with ${String(code)} before ready:\n${output}`)));
    });
    return { child, output: () => output, ready };
  }

  async function stop(child: ChildProcess): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    return exited;
  }

  const admin = async (...args: string[]) => JSON.parse((await run(process.execPath, ['apps/cli/dist/main.js', ...args, '--json'], { cwd: ROOT, env })).stdout);

  const listBroadcasts = (token: string) => fetch(`http://127.0.0.1:${apiPort}/api/v1/broadcasts`, { headers: { authorization: `Bearer ${token}` } });

  it('runs, serves the CLI on its database, stops cleanly and restarts on the same data', async () => {
    const first = start();
    const output = await first.ready;
    const token = /api token {2}(mc_\S+)/.exec(output)?.[1];
    expect(token).toBeDefined();
    expect(output).toContain('first run  created channel 1');
    expect(output).toContain('WEBHOOK_ALLOW_PRIVATE=true');
    expect(output).toContain('SMTP_ALLOW_PRIVATE=true');
    // What runs where: the api, its docs and probes, the dispatcher, the capture server.
    expect(output).toContain(`docs       http://localhost:${apiPort}/docs`);
    expect(output).toContain(`health     http://localhost:${apiPort}/healthz, /readyz and /metrics`);
    expect((await fetch(`http://127.0.0.1:${apiPort}/docs`)).status).toBe(200);
    expect((await readFile(path.join(dataDir, 'dev-token'), 'utf8')).trim()).toBe(token);

    // The first user (docs/teams.md): admin@localhost, sudo, with a password printed once.
    const password = /sign in at \S+ as admin@localhost with password (\S+)/.exec(output)?.[1];
    expect(password).toBeDefined();
    const signIn = await fetch(`http://127.0.0.1:${apiPort}/auth/sign_in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@localhost', password }),
    });
    expect(signIn.status).toBe(200);
    expect((await signIn.json()).user).toMatchObject({ email: 'admin@localhost', sudo: true });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    expect((await fetch(`http://127.0.0.1:${apiPort}/api/v1/broadcasts`, { headers: { cookie } })).status).toBe(200);
    // Nothing keeps it in the clear: not the data directory's files.
    expect((await readFile(path.join(dataDir, 'dev-token'), 'utf8')).includes(password!)).toBe(false);

    const res = await listBroadcasts(token!);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: [], total: 0 });

    // The admin CLI, with no DATABASE_URL, attaches to the embedded cluster npm start runs.
    const created = await admin('channel', 'create', '--name', 'From the CLI');
    expect(created.channel).toEqual({ id: 2, name: 'From the CLI', slug: 'from-the-cli' });
    expect((await listBroadcasts(created.token)).status).toBe(200);
    const scoped = await admin('token', 'create', '--channel', '2', '--permissions', 'subscribers_read');
    expect((await listBroadcasts(scoped.token)).status).toBe(401);
    expect(await admin('token', 'revoke', '--id', String(scoped.id))).toEqual({ revoked: scoped.id });

    expect(await stop(first.child)).toBe(0);
    expect(first.output()).toContain('[mailcast] stopped');
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    const second = start();
    const again = await second.ready;
    expect(again).toContain('migrations up to date');
    expect(again).not.toContain('first run');
    expect(again).toContain(`api token  ${token!}`);
    expect(again).not.toContain('with password');
    expect(again).toContain('dashboard  http://localhost');
    expect((await listBroadcasts(created.token)).status).toBe(200);
    expect(await stop(second.child)).toBe(0);
  }, 120_000);
});
