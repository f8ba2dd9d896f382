import { Readable } from 'node:stream';
import { runCli } from '../main';

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON; undefined when it is not JSON. */
  json: any;
}

/**
 * Runs the admin CLI in this process against `databaseUrl`, as `npm run admin -- <argv>` would,
 * capturing what it prints. `stdin` is what it reads from standard input (`--pass-stdin`).
 */
export async function runAdmin(databaseUrl: string, argv: readonly string[], options: { stdin?: string; env?: NodeJS.ProcessEnv } = {}): Promise<AdminRun> {
  let stdout = '';
  let stderr = '';
  const io = {
    out: (text: string) => (stdout += text),
    err: (text: string) => (stderr += text),
    ...(options.stdin === undefined ? {} : { stdin: Readable.from([options.stdin]) }),
  };
  const code = await runCli(argv, io, { DATABASE_URL: databaseUrl, SMTP_ALLOW_PRIVATE: 'true', ...options.env });
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}
