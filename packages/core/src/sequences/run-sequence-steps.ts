import { conditionHolds, deactivate, runAt, SequenceTree, stepAfter, type StepSettings } from '@mailcast/domain';
import type { LeasedWork, QueueEnd } from '@mailcast/send-engine';
import { inject, injectable } from 'tsyringe';
import { Clock, RandomSource, Repositories, SendEngine, Transactor, type DueEnrolment, type StepResult } from '../ports';
import { recordSubscriberEvents } from '../subscribers/subscriber-events';
import { enrolmentEvent } from './sequence-rules';

/** How a dispatcher works the due steps. Tests shorten the lease. */
export interface SequenceRuntimeOptions {
  leaseMs: number;
  claimBatchSize: number;
  /** Enrolments worked at once. */
  concurrency: number;
  /** Names this process in its claims. */
  workerName?: string;
}
export const SequenceRuntimeOptions = Symbol.for('mailcast.SequenceRuntimeOptions');
export const DEFAULT_SEQUENCE_RUNTIME_OPTIONS: SequenceRuntimeOptions = { leaseMs: 60_000, claimBatchSize: 100, concurrency: 10 };

/** What a step came to, waiting for its commit. */
interface StepOutcome {
  enrolment: DueEnrolment;
  result: StepResult;
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * One turn of the sequence step runtime (docs/sequences.md, "Runtime"): the due enrolments, as
 * leased work the send engine claims in batches; each runs its current step, and the step's
 * effects, the enrolment's next step and its events commit in one transaction together with the
 * (enrolment, step) pair, so a step runs once. An enrolment whose next step is due at once stays
 * due and is claimed again in the same turn. Answers when nothing due is left.
 */
@injectable()
export class RunSequenceSteps {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(SendEngine) private readonly engine: SendEngine,
    @inject(Clock) private readonly clock: Clock,
    @inject(RandomSource) private readonly random: RandomSource,
    @inject(SequenceRuntimeOptions) private readonly options: SequenceRuntimeOptions,
  ) {}

  async execute(input: { handOver?: () => boolean } = {}): Promise<QueueEnd> {
    const o = this.options;
    const worker = `${o.workerName ?? 'sequences'}:${hex(this.random.bytes(6))}`;
    const counted = { claimed: 0 };
    const run = this.engine.run(this.work(worker, counted), {
      worker,
      concurrency: o.concurrency,
      claimBatchSize: o.claimBatchSize,
      leaseMs: o.leaseMs,
      statusPollMs: 1_000,
      commitGroup: { size: o.concurrency, maxWaitMs: 5 },
      handOver: input.handOver ?? (() => false),
    });
    try {
      // A drain ends when a claim finds nothing due, which it also does while the steps it holds
      // are still being recorded; those come due again at once when their next step does not
      // wait, so the turn drains again until a drain claims nothing.
      for (;;) {
        counted.claimed = 0;
        const end = await run.drain();
        if (end !== 'exhausted' || counted.claimed === 0) return end;
      }
    } finally {
      run.close();
    }
  }

  private work(worker: string, counted: { claimed: number }): LeasedWork<DueEnrolment, StepOutcome> {
    const store = this.repositories.sequenceRuntime;
    return {
      goesOn: async () => true,
      claim: async ({ worker, afterId, limit, leaseMs }) => {
        const { items, lastId } = await store.claimDue({ worker, afterId, limit, leaseMs, now: this.clock.now() });
        counted.claimed += items.length;
        return { items, settled: 0, lastId };
      },
      extendLeases: (worker, leaseMs) => store.extendLeases(worker, leaseMs),
      release: (worker) => store.release(worker),
      perform: async (enrolment) => ({ enrolment, result: await this.decide(enrolment) }),
      record: async (group) => {
        for (const outcome of group) await this.record(outcome, worker);
        return group.length;
      },
      progressed: async () => undefined,
    };
  }

  /** Where the enrolment goes after its step (read-only: the step's effects are recorded with it). */
  private async decide(e: DueEnrolment): Promise<StepResult> {
    if (e.step === null) return { stepId: null, next: null };
    const steps = await this.repositories.sequences.steps(e.sequenceId);
    const tree = new SequenceTree(steps);
    if (!tree.has(e.step.id)) return { stepId: e.step.id, next: null };
    const held =
      e.step.action === 'condition'
        ? conditionHolds(e.step.settings.condition_setting, { emails: await this.repositories.sequenceRuntime.emailFacts(e.id) })
        : undefined;
    if (e.step.action === 'move_to_sequence' && e.step.targetSequenceId !== null) {
      return { stepId: e.step.id, next: null, movedTo: e.step.targetSequenceId };
    }
    const nextId = stepAfter(tree, e.step.id, held);
    if (nextId === null) return { stepId: e.step.id, next: null };
    const next = steps.find((s) => s.id === nextId)!;
    return { stepId: e.step.id, next: { stepId: nextId, at: runAt(next.action, next.settings, this.clock.now()) } };
  }

  private async record({ enrolment: e, result }: StepOutcome, worker: string): Promise<void> {
    const now = this.clock.now();
    await this.transactor.run(async (r) => {
      if (result.stepId !== null && !(await r.sequenceRuntime.markRun(e.id, result.stepId, now))) {
        // Ran already (a claim of ours that lapsed and came back): only move on.
        await r.sequenceRuntime.advance(e.id, worker, result, now);
        return;
      }
      if (e.step !== null) await this.applyEffects(r, e, e.step.action, e.step.settings, now);
      if (!(await r.sequenceRuntime.advance(e.id, worker, result, now))) return;
      if (result.movedTo !== undefined) await this.startIn(r, e, result.movedTo, now);
    });
  }

  /** What a step changes besides the enrolment: the subscriber's tags, or its activity. */
  private async applyEffects(r: Repositories, e: DueEnrolment, action: string, settings: StepSettings, now: Date): Promise<void> {
    if (action !== 'add_tag_to_subscriber' && action !== 'remove_tag_from_subscriber' && action !== 'deactivate_subscriber') return;
    const subscriber = await r.subscribers.findById(e.channelId, e.subscriber.id, { forUpdate: true });
    if (subscriber === null || subscriber.redactedAt !== null) return;
    const tags = settings.tags ?? [];
    const changed =
      action === 'add_tag_to_subscriber'
        ? { ...subscriber, tags: [...new Set([...subscriber.tags, ...tags])] }
        : action === 'remove_tag_from_subscriber'
          ? { ...subscriber, tags: subscriber.tags.filter((t) => !tags.includes(t)) }
          : deactivate(subscriber);
    // Saved as the API saves it: the subscribers trigger applies tag triggers and leaving rules.
    const saved = await r.subscribers.save(changed, now);
    await recordSubscriberEvents(r, saved, ['subscriber.updated'], now);
  }

  /** move_to_sequence: the target starts unless the subscriber is under way there. */
  private async startIn(r: Repositories, e: DueEnrolment, targetId: number, now: Date): Promise<void> {
    const target = await r.sequences.findById(e.channelId, targetId);
    if (target === null) return;
    const existing = await r.sequences.findEnrolment(target.id, e.subscriber.id, { forUpdate: true });
    if (existing !== null && ['active', 'paused', 'busy'].includes(existing.status)) return;
    const status = target.active ? 'active' : 'paused';
    const enrolment = existing === null ? await r.sequences.enrol(target, e.subscriber.id, status, now) : await r.sequences.restart(existing.id, status, now);
    await r.outbox.record(enrolmentEvent('sequence.subscriber_added', enrolment, now));
  }
}
