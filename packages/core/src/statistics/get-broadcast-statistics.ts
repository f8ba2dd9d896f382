import { summarizeStatistics, type StatisticsSummary } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { GetBroadcast } from '../broadcasts/get-broadcast';
import type { Broadcast } from '../ports';
import { BroadcastStatisticsReader } from './broadcast-statistics-reader';

/** Spec: Statistics summary, with the contract's definitions (docs/statistics.md). */
@injectable()
export class GetBroadcastStatistics {
  constructor(
    @inject(GetBroadcast) private readonly getBroadcast: GetBroadcast,
    @inject(BroadcastStatisticsReader) private readonly reader: BroadcastStatisticsReader,
  ) {}

  async execute(principal: Principal, input: { id: number }): Promise<{ broadcast: Broadcast; summary: StatisticsSummary }> {
    const broadcast = await this.getBroadcast.execute(principal, input);
    const { recipients, linksClicked } = await this.reader.counts(broadcast.id);
    const summary = summarizeStatistics({
      totalRecipients: broadcast.totalRecipients,
      sent: recipients.delivered,
      failed: recipients.undeliverable,
      opens: recipients.opened,
      clicks: recipients.clicked,
      humanOpens: recipients.human_opened,
      humanClicks: recipients.human_clicked,
      uniqueLinksClicked: linksClicked,
      bounces: recipients.bounced,
      complaints: recipients.complained,
      unsubscribes: recipients.unsubscribed,
    });
    return { broadcast, summary };
  }
}
