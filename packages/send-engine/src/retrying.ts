/**
 * Runs `work` until it succeeds, waiting between failures (100 ms doubling up to 2 s), for as
 * long as `goOn(error)` allows; then throws the last error. For database writes that are safe
 * to repeat, through an outage.
 */
export async function retrying<T>(
  work: () => Promise<T>,
  goOn: (error: unknown, failures: number) => boolean,
  sleep: (ms: number) => Promise<void>,
): Promise<T> {
  for (let failures = 1; ; failures++) {
    try {
      return await work();
    } catch (error) {
      if (!goOn(error, failures)) throw error;
      await sleep(Math.min(2_000, 50 * 2 ** failures));
    }
  }
}

/** A `retrying` limit: go on for `ms` after the first failure. */
export function forUpTo(ms: number, now: () => number): () => boolean {
  let since: number | null = null;
  return () => now() - (since ??= now()) < ms;
}
