import { pickWinner, samplePlan, type SubjectTest, type VariantFigures } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { Clock, Transactor, type Broadcast, type Repositories } from '../ports';
import { SendingOptions } from './sending-options';

/**
 * pg-boss retries a decision that throws (the database away): explicit, since the queue's default
 * is none. Safe: the decision is recorded once, by a conditional write (docs/subject-tests.md).
 */
const DECISION_RETRIES = { retryLimit: 20, retryDelaySeconds: 5 } as const;

/** A variant as answered: its subject and its part's figures. */
export type VariantReport = VariantFigures & { subject: string };

/** The decision's figures, as statistics and the event carry them. */
export interface SubjectTestReport {
  metric: SubjectTest['metric'];
  variants: VariantReport[];
  winner: { index: number; subject: string } | null;
  decided_at: string | null;
}

export function subjectTestReport(test: SubjectTest, figures: readonly VariantFigures[], winner: number | null, decidedAt: Date | null): SubjectTestReport {
  return {
    metric: test.metric,
    variants: test.subjects.map((subject, i) => ({ subject, ...(figures[i] ?? { sent: 0, human_opens: 0, human_clicks: 0 }) })),
    winner: winner === null ? null : { index: winner, subject: test.subjects[winner] ?? '' },
    decided_at: decidedAt === null ? null : decidedAt.toISOString(),
  };
}

/**
 * At queueing, after the list is built (docs/subject-tests.md): the sample is drawn at random and
 * dealt into equal parts, and the rest is held, in one statement, once (a rerun draws nothing).
 */
export async function drawSubjectTestSample(repositories: Repositories, broadcast: Broadcast): Promise<void> {
  const test = broadcast.abTest;
  if (!test) return;
  const store = repositories.subjectTests;
  const plan = samplePlan(await store.countPending(broadcast.id), test.sample_percent, test.subjects.length);
  await store.draw(broadcast.id, test.subjects.length, plan.perVariant);
}

/**
 * When sending starts, in its transaction: the decision is due `wait_minutes` later, by the
 * clock port, and its job waits for then with a singleton key, so it is enqueued once and
 * survives the dispatcher that started the send.
 */
export async function scheduleSubjectTestDecision(r: Repositories, broadcast: Broadcast, now: Date): Promise<void> {
  const test = broadcast.abTest;
  if (!test || broadcast.abDecidedAt) return;
  const at = new Date(now.getTime() + test.wait_minutes * 60_000);
  await r.subjectTests.setDecideAt(broadcast.id, at);
  await enqueueDecision(r, broadcast.id, at);
}

function enqueueDecision(r: Repositories, broadcastId: number, startAfter: Date): Promise<string> {
  return r.jobs.send('broadcasts.ab_decide', { broadcastId }, { startAfter, singletonKey: `ab_decide:${broadcastId}`, ...DECISION_RETRIES });
}

export type DecisionResult = 'decided' | 'already_decided' | 'not_due' | 'nothing_to_do';

/**
 * The `broadcasts.ab_decide` job (docs/subject-tests.md): picks the winner on the human figures of
 * each part, records it once (a conditional write), releases the held rest in one set-based
 * UPDATE, emits `broadcast.ab_test_decided` and enqueues the send, all in one transaction. Any
 * dispatcher may run it; a retry, a duplicate or a second dispatcher finds it decided and does
 * nothing. A job that fires early (the database's clock ahead of ours) waits again.
 */
@injectable()
export class DecideSubjectTest {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
    @inject(SendingOptions) private readonly options: SendingOptions,
  ) {}

  execute(input: { broadcastId: number }): Promise<DecisionResult> {
    const now = this.clock.now();
    return this.transactor.run(async (r) => {
      const b = await r.recipients.findBroadcast(input.broadcastId);
      const test = b?.abTest;
      if (!b || !test || b.status === 'aborted') return 'nothing_to_do';
      if (b.abDecidedAt) return 'already_decided';
      const due = await r.subjectTests.decideAt(b.id);
      if (due === null) return 'nothing_to_do';
      if (due.getTime() > now.getTime()) {
        await enqueueDecision(r, b.id, due);
        return 'not_due';
      }
      const figures = await r.subjectTests.figures(b.id, test.subjects.length);
      const winner = pickWinner(figures, test.metric);
      if (!(await r.subjectTests.recordWinner(b.id, winner, now))) return 'already_decided';
      await r.subjectTests.releaseHeld(b.id);
      await r.outbox.record({
        channelId: b.channelId,
        type: 'broadcast.ab_test_decided',
        data: { broadcast_id: b.id, broadcast_channel_id: b.channelId, ...subjectTestReport(test, figures, winner, now) },
        createdAt: now,
      });
      // A paused broadcast's rest waits for resume, which enqueues its own send.
      if (b.status === 'sending') {
        for (let i = 0; i <= this.options.helperJobs; i++) await r.jobs.send('broadcasts.send', { broadcastId: b.id });
      }
      return 'decided';
    });
  }
}
