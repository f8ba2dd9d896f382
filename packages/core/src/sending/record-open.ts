import { inject, injectable } from 'tsyringe';
import { Clock, Transactor } from '../ports';
import { emailEventData } from './event-data';
import { facts, recipientEvent, tracked } from './tracked-recipient';

/** The open pixel: every load is an open (email.opened), recorded with its time. */
@injectable()
export class RecordOpen {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { token: string }): Promise<boolean> {
    const at = this.clock.now();
    return this.transactor.run(async (r) => {
      const t = await tracked(r, input.token);
      if (t === null) return false;
      await r.recipients.markEngaged(t.id, 'opened', at);
      await r.emailEvents.record(recipientEvent(t, 'opened', at));
      await r.outbox.record({
        channelId: t.channelId,
        type: 'email.opened',
        data: emailEventData({ ...facts(t), openedAt: t.openedAt ?? at }),
        createdAt: at,
      });
      return true;
    });
  }
}
