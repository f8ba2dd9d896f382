import { GetBroadcastProgress, type BroadcastProgress } from '@mailcast/core';
import { SingleBar } from 'cli-progress';
import { setTimeout as sleep } from 'node:timers/promises';
import { positiveInteger, type Command } from './command';

const POLL_MS = 500;

const asJson = (p: BroadcastProgress) => ({
  id: p.id,
  status: p.status,
  total_recipients: p.totalRecipients,
  broadcast_recipients_count: p.processed,
  percentage_complete: p.percentageComplete,
});

const summary = (p: BroadcastProgress) => `broadcast ${p.id}: ${p.status}, ${p.processed}/${p.totalRecipients} recipients processed (${p.percentageComplete}%)`;

/**
 * `broadcast progress --id N`: a live bar while the broadcast is scheduled, queueing or sending,
 * then its final state. With --json it prints the current state once and exits, for scripts.
 */
export const broadcastProgress: Command = {
  usage: 'broadcast progress --id N',
  flags: { id: { type: 'string' } },
  async run(container, flags, io) {
    const id = positiveInteger(flags, 'id');
    const progress = container.resolve(GetBroadcastProgress);
    let current = await progress.execute({ id });
    if (io.json || !current.inProgress) return { json: asJson(current), human: summary(current) };

    const bar = new SingleBar({
      stream: io.progress,
      format: 'broadcast {id} [{bar}] {percentage}% | {value}/{total} | {status}',
      hideCursor: io.progress.isTTY === true,
      // Off a terminal (a log, CI) print a line every few seconds rather than redrawing.
      noTTYOutput: true,
      notTTYSchedule: 2_000,
    });
    bar.start(Math.max(current.totalRecipients, 1), current.processed, { id, status: current.status });
    while (current.inProgress) {
      await sleep(POLL_MS);
      current = await progress.execute({ id });
      bar.setTotal(Math.max(current.totalRecipients, 1));
      bar.update(current.processed, { status: current.status });
    }
    bar.stop();
    return { json: asJson(current), human: summary(current) };
  },
};
