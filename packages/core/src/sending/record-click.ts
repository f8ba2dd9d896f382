import { inject, injectable } from 'tsyringe';
import { Clock, Transactor } from '../ports';
import { emailEventData } from './event-data';
import { ENGAGEMENT_WINDOW_MS, facts, recipientEvent, tracked } from './tracked-recipient';

/**
 * A tracked link: the recipient's token and the link's identifier name the stored URL, and
 * only that URL is ever the redirect target (never one taken from the request).
 */
@injectable()
export class RecordClick {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** The original URL, or null when the token or link is unknown. */
  async execute(input: { token: string; link: string }): Promise<string | null> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(input.link)) return null;
    const at = this.clock.now();
    return this.transactor.run(async (r) => {
      const t = await tracked(r, input.token);
      if (t === null) return null;
      const link = await r.recipients.findLink(t.broadcastId, input.link);
      if (link === null) return null;
      // A repeat within the window is served as usual but recorded and emitted once.
      if (!(await r.recipients.markEngaged(t.id, 'clicked', at, new Date(at.getTime() - ENGAGEMENT_WINDOW_MS), link.id))) return link.url;
      await r.emailEvents.record({ ...recipientEvent(t, 'clicked', at), linkId: link.id, data: { url: link.url } });
      await r.outbox.record({
        channelId: t.channelId,
        type: 'email.clicked',
        data: emailEventData({ ...facts(t), clickedAt: t.clickedAt ?? at }),
        createdAt: at,
      });
      return link.url;
    });
  }
}
