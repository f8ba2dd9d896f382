import type { BroadcastStatus } from '@mailcast/domain';

/**
 * Looks at a broadcast's status every `everyMs` while a job sends it, and calls `stopped` once
 * (the first time it is anything but `sending`: paused, aborted, gone). A look-up that fails
 * (the database away) is skipped; the next one tries again. One look-up at a time.
 */
export function watchStatus(read: () => Promise<BroadcastStatus | null>, everyMs: number, stopped: () => void): { stop(): void } {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let over = false;
  const look = async () => {
    const status = await read().catch(() => 'sending' as const);
    if (over) return;
    if (status !== 'sending') {
      over = true;
      stopped();
      return;
    }
    timer = setTimeout(() => void look(), everyMs);
  };
  timer = setTimeout(() => void look(), everyMs);
  return {
    stop: () => {
      over = true;
      if (timer !== null) clearTimeout(timer);
    },
  };
}
