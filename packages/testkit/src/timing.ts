/**
 * CPU milliseconds `work` took in this process: steadier than wall time on a machine whose cores
 * are shared with other work, and what a blocked event loop costs everyone else.
 */
export function cpuMs(work: () => unknown): number {
  const started = process.cpuUsage();
  work();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

/**
 * The least CPU milliseconds of `runs` runs of `work`. What else the process does meanwhile
 * (collecting an earlier test's garbage on V8's helper threads counts in `process.cpuUsage`) only
 * adds to a run, while a slow algorithm is slow in every run, so the least is the figure to bound.
 */
export function leastCpuMs(work: () => unknown, runs = 3): number {
  let least = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run += 1) least = Math.min(least, cpuMs(work));
  return least;
}

/** The same for asynchronous work (which must not wait on I/O for the figure to mean CPU). */
export async function cpuMsAsync(work: () => Promise<unknown>): Promise<number> {
  const started = process.cpuUsage();
  await work();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

/** Most instants in any window [t, t + width) of the sorted instants: a rate limit's measure. */
export function busiestWindow(times: readonly number[], width: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= width) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}
