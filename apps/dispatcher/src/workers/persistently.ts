import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Writes an outcome that is already known (the webhook POST happened), trying again through a
 * short database outage: given up, the delivery would wait for the stalled sweep and be POSTed
 * again. Only for writes that are safe to repeat: an attempt is recorded only while its row is
 * still at the attempt before it.
 */
export async function persistently(write: () => Promise<unknown>, delaysMs: readonly number[] = [250, 500, 1_000, 2_000, 4_000]): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await write();
      return;
    } catch (error) {
      const delay = delaysMs[i];
      if (delay === undefined) throw error;
      await sleep(delay);
    }
  }
}
