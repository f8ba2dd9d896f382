import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '../..');

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
    ...env,
  });
}
