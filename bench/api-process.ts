import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const API_MAIN = path.resolve(__dirname, '../apps/api/dist/main.js');

/** The built api as production runs it: a process of its own (`node apps/api/dist/main.js`). */
export async function startApi(env: NodeJS.ProcessEnv, port: number): Promise<{ child: ChildProcess; stop(): Promise<void> }> {
  // BENCH_API_EXECARGV: node options for the api process only, e.g. "--cpu-prof --cpu-prof-dir=/tmp/p".
  const execArgv = process.env.BENCH_API_EXECARGV?.split(' ').filter((a) => a !== '') ?? [];
  const child = fork(API_MAIN, [], { env: { ...process.env, ...env, PORT: String(port) }, stdio: 'pipe', execArgv });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/healthz`);
      return { child, stop };
    } catch {
      if (child.exitCode !== null) throw new Error(`the api exited: ${output}`);
      await sleep(100);
    }
  }
  await stop();
  throw new Error(`the api did not start: ${output}`);
}

/**
 * A lean keep-alive client (one socket, like autocannon's): it reads the whole answer and parses
 * it, but spends less of the shared CPU than fetch, which is the measuring instrument, not the api.
 */
export function jsonClient(headers: http.OutgoingHttpHeaders) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (url: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get(url, { agent, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        })
        .on('error', reject);
    });
  return { get, close: () => agent.destroy() };
}
