import { summarizeStatistics, type StatisticsSummary } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { GetBroadcast } from '../broadcasts/get-broadcast';
import { Repositories, type Broadcast } from '../ports';
import { subjectTestReport, type SubjectTestReport } from '../sending/subject-test';
import { BroadcastStatisticsReader } from './broadcast-statistics-reader';

/** Spec: Statistics summary, with the contract's definitions (docs/statistics.md). */
@injectable()
export class GetBroadcastStatistics {
  constructor(
    @inject(GetBroadcast) private readonly getBroadcast: GetBroadcast,
    @inject(BroadcastStatisticsReader) private readonly reader: BroadcastStatisticsReader,
    @inject(Repositories) private readonly repositories: Repositories,
  ) {}

  async execute(principal: Principal, input: { id: number }): Promise<{ broadcast: Broadcast; summary: StatisticsSummary; abTest: SubjectTestReport | null }> {
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
    return { broadcast, summary, abTest: await this.subjectTest(broadcast) };
  }

  /** docs/subject-tests.md: each part's figures, and the winner once decided; null without a test. */
  private async subjectTest(b: Broadcast): Promise<SubjectTestReport | null> {
    if (!b.abTest) return null;
    const figures = await this.repositories.subjectTests.figures(b.id, b.abTest.subjects.length);
    return subjectTestReport(b.abTest, figures, b.abWinner ?? null, b.abDecidedAt ?? null);
  }
}
