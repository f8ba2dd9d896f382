import type { Cancel, Timers } from './ports';

/**
 * Asks every `everyMs` whether a run may go on, and calls `stopped` once (the first time the
 * answer is no: a broadcast paused, aborted, gone). A question that fails (the database away)
 * counts as yes; the next one asks again. One question at a time.
 */
export function watchStatus(goesOn: () => Promise<boolean>, everyMs: number, stopped: () => void, timers: Timers): { stop(): void } {
  let cancel: Cancel | null = null;
  let over = false;
  const look = async () => {
    const yes = await goesOn().catch(() => true);
    if (over) return;
    if (!yes) {
      over = true;
      stopped();
      return;
    }
    cancel = timers.after(everyMs, () => void look());
  };
  cancel = timers.after(everyMs, () => void look());
  return {
    stop: () => {
      over = true;
      cancel?.();
    },
  };
}
