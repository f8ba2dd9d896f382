import { normalizeEmail } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError, ValidationError } from '../errors';
import { HtmlReader, Repositories, Templates } from '../ports';
import { BroadcastRenderer } from '../sending/broadcast-renderer';
import { SUBSCRIBER_NOT_FOUND } from '../subscribers/subscriber-events';
import { BROADCAST_NOT_FOUND } from './get-broadcast';

export interface BroadcastPreview {
  subscriberEmail: string;
  subject: string;
  preheader: string | null;
  text: string;
  html: string;
}

/** What tracking and unsubscribe links point at in a preview: nowhere that records anything. */
const PREVIEW_TOKEN = 'preview';

/**
 * The broadcast rendered for one of the channel's subscribers, as the sending pipeline renders
 * it (Liquid scope, preheader, unsubscribe link), with opens and clicks untracked: a preview
 * records no event and saves no link. Works in every status.
 */
@injectable()
export class PreviewBroadcast {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Templates) private readonly templates: Templates,
    @inject(HtmlReader) private readonly reader: HtmlReader,
  ) {}

  async execute(principal: Principal, input: { id: number; email: string }): Promise<BroadcastPreview> {
    const broadcast = await this.repositories.broadcasts.findById(principal.channelId, input.id);
    if (broadcast === null) throw new NotFoundError(BROADCAST_NOT_FOUND);
    const subscriber = await this.repositories.subscribers.findByEmail(principal.channelId, normalizeEmail(input.email));
    if (subscriber === null) throw new NotFoundError(SUBSCRIBER_NOT_FOUND);

    const untracked = { ...broadcast, trackOpens: false, trackClicks: false };
    const renderer = new BroadcastRenderer(untracked, this.templates, this.reader, [], '', () => PREVIEW_TOKEN);
    try {
      const email = await renderer.render({ recipientId: 0, subscriber });
      return { subscriberEmail: subscriber.email, subject: email.subject, preheader: broadcast.preheader, text: email.text, html: email.html };
    } catch (error) {
      throw new ValidationError(`Broadcast cannot be rendered: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
