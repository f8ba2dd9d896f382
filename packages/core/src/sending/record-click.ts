import { inject, injectable } from 'tsyringe';
import { Clock, Transactor } from '../ports';
import { emailEventData } from './event-data';
import { isSequenceToken, recordSequenceClick } from '../sequences/sequence-tracking';
import { classifyEngagement, SCANNER_BURST_WINDOW_MS } from '@mailcast/domain';
import { ENGAGEMENT_WINDOW_MS, facts, recipientEvent, tracked, UNDESCRIBED_REQUEST, type TrackingRequest } from './tracked-recipient';

/**
 * A tracked link: the recipient's token and the link's identifier name the stored URL, and
 * only that URL is ever the redirect target (never one taken from the request). Every recorded
 * click is classified as a person's or a machine's (docs/engagement.md).
 */
@injectable()
export class RecordClick {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** The original URL, or null when the token or link is unknown. */
  async execute(input: { token: string; link: string; request?: TrackingRequest }): Promise<string | null> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(input.link)) return null;
    const at = this.clock.now();
    return this.transactor.run(async (r) => {
      // A sequence email's token (docs/sequences.md, "Tracking").
      if (isSequenceToken(input.token)) return recordSequenceClick(r, input.token, input.link, input.request, at);
      // The row lock comes first, so concurrent clicks of one email (a scanner fetching every
      // link at once) are recorded one at a time, each seeing the clicks before it.
      const t = await tracked(r, input.token, { forUpdate: true });
      if (t === null) return null;
      const link = await r.recipients.findLink(t.broadcastId, input.link);
      if (link === null) return null;
      // A repeat within the window is served as usual but recorded and emitted once.
      const context = await r.recipients.markClicked({
        recipientId: t.id,
        broadcastId: t.broadcastId,
        linkId: link.id,
        at,
        windowStart: new Date(at.getTime() - ENGAGEMENT_WINDOW_MS),
        contextSince: new Date(at.getTime() - SCANNER_BURST_WINDOW_MS),
      });
      if (context === null) return link.url;
      const request = input.request ?? UNDESCRIBED_REQUEST;
      const verdict = classifyEngagement({ kind: 'click', ...request, deliveredAt: t.deliveredAt, at, linkId: link.id, ...context });
      if (verdict.retroactive.length > 0) await r.emailEvents.flagScannerClicks(t.broadcastId, t.id, verdict.retroactive);
      await r.emailEvents.record({
        ...recipientEvent(t, 'clicked', at),
        linkId: link.id,
        data: { url: link.url },
        machine: verdict.machine,
        machineReason: verdict.machine_reason,
      });
      await r.outbox.record({
        channelId: t.channelId,
        type: 'email.clicked',
        data: { ...emailEventData({ ...facts(t), clickedAt: t.clickedAt ?? at }), machine: verdict.machine },
        createdAt: at,
      });
      return link.url;
    });
  }
}
