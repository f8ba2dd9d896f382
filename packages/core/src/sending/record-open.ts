import { inject, injectable } from 'tsyringe';
import { Clock, Transactor } from '../ports';
import { emailEventData } from './event-data';
import { isSequenceToken, recordSequenceOpen } from '../sequences/sequence-tracking';
import { classifyEngagement } from '@mailcast/domain';
import { ENGAGEMENT_WINDOW_MS, facts, recipientEvent, tracked, UNDESCRIBED_REQUEST, type TrackingRequest } from './tracked-recipient';

/**
 * The open pixel: a load is an open (email.opened), recorded with its time, once per window,
 * and classified as a person's or a machine's (docs/engagement.md).
 */
@injectable()
export class RecordOpen {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { token: string; request?: TrackingRequest }): Promise<boolean> {
    const at = this.clock.now();
    return this.transactor.run(async (r) => {
      // A sequence email's token (docs/sequences.md, "Tracking").
      if (isSequenceToken(input.token)) return recordSequenceOpen(r, input.token, input.request, at);
      const t = await tracked(r, input.token);
      if (t === null) return false;
      // A repeat within the window is served as usual but recorded and emitted once.
      if (!(await r.recipients.markEngaged(t.id, 'opened', at, new Date(at.getTime() - ENGAGEMENT_WINDOW_MS)))) return true;
      const request = input.request ?? UNDESCRIBED_REQUEST;
      const verdict = classifyEngagement({ kind: 'open', ...request, deliveredAt: t.deliveredAt, at });
      await r.emailEvents.record({ ...recipientEvent(t, 'opened', at), machine: verdict.machine, machineReason: verdict.machine_reason });
      await r.outbox.record({
        channelId: t.channelId,
        type: 'email.opened',
        data: { ...emailEventData({ ...facts(t), openedAt: t.openedAt ?? at }), machine: verdict.machine },
        createdAt: at,
      });
      return true;
    });
  }
}
