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

/** A positive integer, or null when the flag is absent. */
export function optionalPositiveInteger(flags: Flags, name: string): number | null {
  return flags[name] === undefined ? null : positiveInteger(flags, name);
}
