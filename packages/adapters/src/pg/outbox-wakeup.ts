import type { Knex } from 'knex';
import { JOBS_CHANNEL } from '../queue/job-notifications';

/** The payload on the jobs channel that says "events were committed to the outbox". */
export const OUTBOX_WAKE = 'outbox';

/**
 * Tells the outbox relays that events were committed, so they claim them at once rather than at
 * their next poll (docs/webhooks.md, "Waking the relay"). Sent after the writer's commit, on a
 * connection of its own, never inside the writer's transaction: PostgreSQL serializes the
 * commits of every transaction that NOTIFYs, which would cap the write path. Coalesced per
 * process: one NOTIFY at a time, then none for `spacingMs`, and one more covering whatever was
 * committed meanwhile, so a busy writer sends at most one per `spacingMs`. A lost one costs a poll.
 */
export class OutboxWakeup {
  private busy = false;
  private again = false;

  constructor(
    private readonly db: Knex,
    private readonly spacingMs = 10,
  ) {}

  /** After a commit that recorded events. Never throws, never waits. */
  poke(): void {
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    void this.send();
  }

  private async send(): Promise<void> {
    try {
      // Nothing depends on this transaction being durable: it need not wait for the WAL flush.
      await this.db.raw(`SELECT set_config('synchronous_commit', 'off', true), pg_notify(?, ?)`, [JOBS_CHANNEL, OUTBOX_WAKE]);
    } catch {
      // The relays poll as well: this only makes them sooner.
    }
    await new Promise<void>((resolve) => setTimeout(resolve, this.spacingMs).unref());
    this.busy = false;
    if (this.again) {
      this.again = false;
      this.poke();
    }
  }
}
