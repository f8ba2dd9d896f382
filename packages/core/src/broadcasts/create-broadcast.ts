import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Clock, Repositories, Templates } from '../ports';
import { toBroadcastChanges, type BroadcastInput } from './broadcast-input';

/**
 * Spec: Create. A new broadcast is a draft; track_opens/track_clicks default to the channel's.
 * No transaction: the reads (the channel, and what the input names) take no locks and the
 * broadcast is one INSERT, so BEGIN and COMMIT would add two round trips and no guarantee
 * (docs/write-path.md, "Broadcast create").
 */
@injectable()
export class CreateBroadcast {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Templates) private readonly templates: Templates,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(caller: Principal, input: BroadcastInput): Promise<{ id: number }> {
    const repositories = this.repositories;
    const channel = await repositories.channels.findById(caller.channelId);
    if (channel === null) throw new NotFoundError('Channel not found');
    const changes = await toBroadcastChanges(input, { channelId: caller.channelId, repositories, templates: this.templates });
    const created = await repositories.broadcasts.create(
      {
        channelId: caller.channelId,
        name: changes.name ?? null,
        // toBroadcastChanges refuses a blank subject on create.
        subject: changes.subject ?? '',
        preheader: changes.preheader ?? null,
        body: changes.body ?? null,
        htmlBody: changes.htmlBody ?? null,
        includeUnsubscribeLink: changes.includeUnsubscribeLink ?? true,
        replyTo: changes.replyTo ?? null,
        trackOpens: changes.trackOpens ?? channel.trackOpens,
        trackClicks: changes.trackClicks ?? channel.trackClicks,
        useAnyEmailServer: changes.useAnyEmailServer ?? false,
        emailHeaders: changes.emailHeaders ?? [],
        tags: changes.tags ?? [],
        segmentIds: changes.segmentIds ?? [],
        topicId: changes.topicId ?? null,
        excludedSegmentIds: changes.excludedSegmentIds ?? [],
        templateId: changes.templateId ?? null,
        emailServerIds: changes.emailServerIds ?? [],
        scheduledSendAt: changes.scheduledSendAt ?? null,
        scheduledTimezone: changes.scheduledTimezone ?? null,
        archive: changes.archive ?? false,
        sendInSubscriberTimezone: changes.sendInSubscriberTimezone ?? false,
        abTest: changes.abTest ?? null,
      },
      this.clock.now(),
    );
    return { id: created.id };
  }
}
