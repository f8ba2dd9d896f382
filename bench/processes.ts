import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '..');

/**
 * An SMTP server that accepts and discards, in its own process, logging off. Its first line is
 * JSON: the SMTP port and a control port answering GET with the count of messages it accepted,
 * so a bare loop's sends can be checked at the receiving end.
 */
export const DISCARDING_SINK = `
const { SMTPServer } = require('smtp-server');
const http = require('node:http');
let accepted = 0;
const server = new SMTPServer({
  authOptional: true, disabledCommands: ['STARTTLS'], logger: false, size: 0,
  onData(stream, _s, cb) { stream.on('data', () => {}); stream.on('end', () => { accepted++; cb(); }); },
});
const control = http.createServer((_req, res) => res.end(String(accepted)));
server.listen(0, '127.0.0.1', () => control.listen(0, '127.0.0.1', () =>
  console.log(JSON.stringify({ smtp: server.server.address().port, control: control.address().port }))));
`;

/** The count of messages a DISCARDING_SINK accepted so far. */
export async function sinkAccepted(controlPort: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${controlPort}/`);
  return Number(await res.text());
}

/** A Node.js process from the repository's root: its first line of output, and its exit. */
export function nodeProcess(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): { child: ChildProcess; firstLine: Promise<string>; exited: Promise<number | null> } {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const nl = out.indexOf('\n');
      if (nl !== -1) resolve(out.slice(0, nl));
    });
    void exited.then((code) => reject(new Error(`process exited (${code}) before answering: ${err.slice(-2000)}`)));
  });
  return { child, firstLine, exited };
}

/** A process's peak (VmHWM) or current (VmRSS) resident memory, in kB (Linux). */
export function memoryKb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return m ? Number(m[1]) : Number.NaN;
}

/** CPU seconds (user + system) each thread of a process has used so far, by thread id, with its name (Linux). */
export function threadCpuSeconds(pid: number): Map<number, { name: string; seconds: number }> {
  const threads = new Map<number, { name: string; seconds: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      threads.set(Number(tid), { name, seconds: (Number(fields[11]) + Number(fields[12])) / 100 });
    } catch {
      // The thread ended while the directory was read.
    }
  }
  return threads;
}

/**
 * What each thread used between two readings, largest first, as "name (main): N us" per message;
 * threads that used under 1% of the whole are summed as "others".
 */
export function threadShares(
  before: Map<number, { seconds: number }>,
  after: Map<number, { name: string; seconds: number }>,
  pid: number,
  messages: number,
): string {
  const used = [...after].map(([tid, t]) => ({ tid, name: t.name, seconds: t.seconds - (before.get(tid)?.seconds ?? 0) }));
  const total = used.reduce((sum, t) => sum + t.seconds, 0);
  const us = (seconds: number) => Math.round((seconds * 1e6) / messages);
  const big = used.filter((t) => t.seconds >= total / 100).sort((a, b) => b.seconds - a.seconds);
  const rest = total - big.reduce((sum, t) => sum + t.seconds, 0);
  return [...big.map((t) => `${t.name}${t.tid === pid ? ' (main)' : ''} ${us(t.seconds)} us`), `others ${us(rest)} us`].join(', ');
}
