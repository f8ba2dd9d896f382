import { NotFoundError, Repositories, ValidationError, type Principal } from '@mailcast/core';
import type { Permission } from '@mailcast/domain';
import { readFile } from 'node:fs/promises';
import type { DependencyContainer } from 'tsyringe';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type Flags = Record<string, string | boolean | undefined>;

/** Where a long command shows its progress: stderr, so stdout keeps its one JSON document. */
export interface CommandIo {
  json: boolean;
  progress: NodeJS.WritableStream & { isTTY?: boolean };
  /** The environment the command runs in (a password may come from it, never from argv). */
  env: NodeJS.ProcessEnv;
  /** All of standard input, for `--pass-stdin`. */
  readStdin(): Promise<string>;
}

/** One admin command: its result is the JSON document `--json` prints, `human` the plain text. */
export interface Command {
  usage: string;
  flags: Record<string, { type: 'string' | 'boolean' }>;
  /** The name of the command's one positional argument, if it takes one; it arrives in `flags`. */
  positional?: string;
  run(container: DependencyContainer, flags: Flags, io: CommandIo): Promise<{ json: unknown; human: string }>;
}

export function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function optional(flags: Flags, name: string): string | null {
  const value = flags[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

export function positiveInteger(flags: Flags, name: string): number {
  const raw = required(flags, name);
  if (!/^[1-9]\d{0,15}$/.test(raw)) throw new UsageError(`--${name} must be a positive integer`);
  return Number(raw);
}

/** The operator acts for a channel as its own token would: what it reaches is scoped by the channel. */
export async function actingFor(container: DependencyContainer, channelId: number, permissions: readonly Permission[]): Promise<Principal> {
  if ((await container.resolve<Repositories>(Repositories).channels.findById(channelId)) === null) {
    throw new NotFoundError('Channel not found');
  }
  return { tokenId: 0, channelId, permissions };
}

/** A file the operator named, with a clear error when it cannot be read. */
export async function readTextFile(file: string): Promise<string> {
  return readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new ValidationError(error.code === 'ENOENT' ? `File not found: ${file}` : `Cannot read ${file}: ${error.message}`);
  });
}

/** A positive integer, or null when the flag is absent. */
export function optionalPositiveInteger(flags: Flags, name: string): number | null {
  return flags[name] === undefined ? null : positiveInteger(flags, name);
}
