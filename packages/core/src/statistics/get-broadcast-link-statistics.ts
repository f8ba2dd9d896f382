import { parseLinkQuery, sortLinks, toLinkItem, type LinkItem } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { GetBroadcast } from '../broadcasts/get-broadcast';
import { BroadcastStatisticsReader } from './broadcast-statistics-reader';

export interface BroadcastLinkStatistics {
  broadcastId: number;
  totalLinks: number;
  totalClicks: number;
  links: LinkItem[];
}

/**
 * Spec: Link statistics. total_links and total_clicks cover every tracked link of the
 * broadcast, not only the page `limit` keeps; click_rate is over sent (docs/statistics.md).
 */
@injectable()
export class GetBroadcastLinkStatistics {
  constructor(
    @inject(GetBroadcast) private readonly getBroadcast: GetBroadcast,
    @inject(BroadcastStatisticsReader) private readonly reader: BroadcastStatisticsReader,
  ) {}

  async execute(principal: Principal, input: { id: number; sort?: string; order?: string; limit?: string }): Promise<BroadcastLinkStatistics> {
    const broadcast = await this.getBroadcast.execute(principal, { id: input.id });
    const query = parseLinkQuery(input);
    const [links, counts] = await Promise.all([this.reader.links(broadcast.id), this.reader.counts(broadcast.id)]);
    const sent = counts.recipients.delivered;
    return {
      broadcastId: broadcast.id,
      totalLinks: links.length,
      totalClicks: links.reduce((sum, l) => sum + l.totalClicks, 0),
      links: sortLinks(links, query.sort, query.order)
        .slice(0, query.limit)
        .map((l) => toLinkItem(l, sent)),
    };
  }
}
