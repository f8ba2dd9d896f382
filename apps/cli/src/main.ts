import 'reflect-metadata';
import { AppError } from '@mailcast/core';
import { createBoss, createDatabase, createLogger, isDatabaseUnavailable, loadConfig, loadDevkitPackage, resolveDatabase } from '@mailcast/adapters';
import { parseArgs } from 'node:util';
import { Writable } from 'node:stream';
import type { DependencyContainer } from 'tsyringe';
import { UsageError, type CommandIo } from './commands/command';
import { COMMANDS } from './commands';
import { buildContainer } from './container';
import { recordCliCommand } from './audit';

const USAGE = ['usage: npm run -s admin -- <command> [--json]', ...Object.values(COMMANDS).map((c) => `  ${c.usage}`)].join('\n');

interface Output {
  out(text: string): void;
  err(text: string): void;
  /** The terminal, when there is one: progress bars redraw in place there. */
  isTTY?: boolean;
  /** Standard input; process.stdin unless given. */
  stdin?: NodeJS.ReadableStream;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

function progressStream(io: Output): CommandIo['progress'] {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      io.err(chunk.toString());
      done();
    },
  });
  return Object.assign(stream, { isTTY: io.isTTY === true });
}

/**
 * Runs one admin command. With --json, stdout receives exactly one JSON document, the
 * result or `{"error": ...}` (docs/operations.md); everything else goes to stderr. Returns the exit code.
 */
export async function runCli(argv: readonly string[], io: Output, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const json = argv.includes('--json');
  const fail = (message: string, code: number) => {
    if (json) io.out(JSON.stringify({ error: message }) + '\n');
    else io.err(`${message}\n`);
    return code;
  };

  const [noun, verb, ...rest] = argv;
  const command = COMMANDS[`${noun ?? ''} ${verb ?? ''}`];
  if (command === undefined) return fail(`unknown command\n${USAGE}`, 2);

  let flags;
  try {
    const parsed = parseArgs({
      args: rest,
      options: { ...command.flags, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: command.positional !== undefined,
    });
    flags = parsed.values as Record<string, string | boolean | undefined>;
    if (command.positional !== undefined) {
      if (parsed.positionals.length !== 1) throw new Error(`exactly one ${command.positional} is required`);
      flags[command.positional] = parsed.positionals[0];
    }
  } catch (error) {
    return fail(`${(error as Error).message}\nusage: ${command.usage}`, 2);
  }

  const config = loadConfig(env);
  const logger = createLogger({ level: 'warn', production: config.production, service: 'admin' });
  const database = await resolveDatabase(config.databaseUrl, loadDevkitPackage, env);
  const db = createDatabase(database.url, { poolMax: 2 });
  // The admin commands never enqueue; the queue client is bound but never started.
  const boss = createBoss(database.url, 'api');
  let container: DependencyContainer | undefined;
  let exitCode = 1;
  try {
    container = buildContainer({ config, logger, db, boss });
    const result = await command.run(container, flags, {
      json,
      progress: progressStream(io),
      env,
      readStdin: () => readAll(io.stdin ?? process.stdin),
    });
    io.out(json ? JSON.stringify(result.json) + '\n' : result.human + '\n');
    exitCode = 0;
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return fail(`${error.message}\nusage: ${command.usage}`, 2);
    if (error instanceof AppError) return fail(error.message, 1);
    if (isDatabaseUnavailable(error))
      return fail(`the database cannot be reached (${(error as Error).message}); check DATABASE_URL and that PostgreSQL is running`, 1);
    throw error;
  } finally {
    if (container !== undefined) await recordCliCommand(container, `${noun} ${verb}`, flags, exitCode);
    await db.destroy();
    await database.stop();
  }
}

if (require.main === module) {
  runCli(process.argv.slice(2), {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    isTTY: process.stderr.isTTY,
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (process.argv.includes('--json')) process.stdout.write(JSON.stringify({ error: message }) + '\n');
      else process.stderr.write(`admin: ${message}\n`);
      process.exitCode = 1;
    },
  );
}
