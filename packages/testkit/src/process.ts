import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '../../..');

export interface Spawned {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** Runs a built entry point (`npm test` builds first) with the given environment. */
export function spawnBuilt(script: string, env: NodeJS.ProcessEnv): Spawned {
  if (!existsSync(path.join(REPO_ROOT, script))) {
    throw new Error(`${script} is not built: \`npm test\` builds first (npm run build)`);
  }
  const child = spawn(process.execPath, [script], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, output: () => output, exited };
}

/** Stops every process in `running` that is still alive (SIGTERM, then waits), emptying the list. */
export async function stopAll(running: Spawned[]): Promise<void> {
  for (const d of running.splice(0)) {
    if (d.child.exitCode === null && d.child.signalCode === null) {
      d.child.kill('SIGTERM');
      await d.exited;
    }
  }
}

/**
 * A built dispatcher on `databaseUrl`, as the multi-process tests run it: links on a test host,
 * warnings only; `env` adds to or overrides that.
 */
export function spawnDispatcher(databaseUrl: string, env: NodeJS.ProcessEnv = {}): Spawned {
  return spawnBuilt('apps/dispatcher/dist/main.js', {
    ...process.env,
    DATABASE_URL: databaseUrl,
    PUBLIC_URL: 'http://links.example.test',
    LOG_LEVEL: 'warn',
    // Its SMTP servers are the tests', on loopback (docs/email-servers.md, "Addresses").
    SMTP_ALLOW_PRIVATE: 'true',
    ...env,
  });
}

/** The dispatcher processes one describe starts, stopped for it (see dispatcherProcesses). */
export interface DispatcherProcesses {
  /** Spawns a dispatcher on `databaseUrl` (spawnDispatcher) and keeps it to stop. */
  start(databaseUrl: string, env?: NodeJS.ProcessEnv): Spawned;
  /** Those started and not yet stopped, in order. */
  readonly running: readonly Spawned[];
  /** The last `chars` of each one's output, labelled: for a failure message. */
  output(chars?: number): string;
}

/**
 * Dispatchers for the enclosing describe, each stopped (SIGTERM, then waited for) after every
 * test, or after all of them with `stopAfter: 'all'`. Call it before the describe's own
 * afterAll, so they stop before what they use (the database, the SMTP server) goes away.
 */
export function dispatcherProcesses(stopAfter: 'each' | 'all' = 'each'): DispatcherProcesses {
  const running: Spawned[] = [];
  (stopAfter === 'each' ? afterEach : afterAll)(() => stopAll(running), 60_000);
  return {
    start(databaseUrl, env = {}) {
      const d = spawnDispatcher(databaseUrl, env);
      running.push(d);
      return d;
    },
    running,
    output: (chars = 3_000) => running.map((d, i) => `--- dispatcher ${i} ---\n${d.output().slice(-chars)}`).join('\n'),
  };
}
