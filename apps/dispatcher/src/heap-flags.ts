/**
 * The dispatcher's heap bounds (docs/broadcasts-and-sending.md, "Memory"). Imported first by
 * main.ts, before any other module has grown the heap, so they hold however the process is started
 * (no node flag needed). Imports node:v8 alone for that reason.
 *
 * - `--semi-space-growth-factor=1`: the main thread's young generation keeps the size it starts
 *   with (1 MB semi-spaces; 2 MB when it grew once in the moment between a thread's isolate
 *   resetting the factor and the flags being set again) instead of growing to V8's 16 MB ones
 *   under a sending peak.
 *   `--max-semi-space-size` set at run time is not read by an isolate already configured; the
 *   growth factor is.
 * - `--min-semi-space-size=2`: read only when an isolate is configured, so it leaves the main
 *   thread alone and starts each SMTP and rendering thread at 2 MB semi-spaces, their bound
 *   (DEFAULT_THREAD_YOUNG_GENERATION_MB): the SMTP thread is the one that limits throughput, and
 *   1 MB ones cost it more collections.
 * - `--heap-growing-percent=30`: after a full collection the old generation may grow by 30% of
 *   what survived (with V8's minimum step) before the next one, instead of the default factor (up
 *   to 4x): short-lived objects promoted under load are collected before they pile up.
 *
 * A flag the operator gave (on the command line or in NODE_OPTIONS) is left as given.
 */
import v8 from 'node:v8';

const DEFAULTS: ReadonlyArray<{ flag: string; overriddenBy: readonly string[] }> = [
  { flag: '--semi-space-growth-factor=1', overriddenBy: ['semi-space-growth-factor', 'max-semi-space-size', 'min-semi-space-size'] },
  { flag: '--min-semi-space-size=2', overriddenBy: ['min-semi-space-size', 'max-semi-space-size'] },
  { flag: '--heap-growing-percent=30', overriddenBy: ['heap-growing-percent'] },
];

/** The flags to set: the defaults, less those the operator's own flags decide. */
export function heapFlags(execArgv: readonly string[], nodeOptions = ''): string[] {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].filter((arg) => arg.startsWith('--')).map((arg) => arg.slice(2).split('=')[0]!.replaceAll('_', '-'));
  return DEFAULTS.filter(({ overriddenBy }) => !overriddenBy.some((name) => given.includes(name))).map(({ flag }) => flag);
}

export const HEAP_FLAGS: readonly string[] = heapFlags(process.execArgv, process.env.NODE_OPTIONS);
for (const flag of HEAP_FLAGS) v8.setFlagsFromString(flag);
