import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '..');

/** An SMTP server that accepts and discards, in its own process, logging off; its first line is its port. */
export const DISCARDING_SINK = `
const { SMTPServer } = require('smtp-server');
const server = new SMTPServer({
  authOptional: true, disabledCommands: ['STARTTLS'], logger: false, size: 0,
  onData(stream, _s, cb) { stream.on('data', () => {}); stream.on('end', () => cb()); },
});
server.listen(0, '127.0.0.1', () => console.log(String(server.server.address().port)));
`;

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
