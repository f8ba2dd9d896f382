import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
