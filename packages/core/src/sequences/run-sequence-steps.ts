import type { LeasedWork } from '@mailcast/send-engine';
import { inject, injectable } from 'tsyringe';
import {
  Clock,
  HtmlReader,
  RandomSource,
  Repositories,
  SegmentRepository,
  SendEngine,
  SequenceRendering,
  SequenceRuntime,
  Templates,
  WebhookDestinations,
  WebhookSender,
  type DueEnrolment,
  type StepRecord,
} from '../ports';
import { SequenceStepGuard } from '../reputation/sequence-step-guard';
import { SendingOptions } from '../sending/sending-options';
import { StepPerformer } from './step-performer';

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** The longest one turn works before it returns (the dispatcher starts the next at once). */
const TURN_MS = 30_000;

/**
 * One dispatcher turn of the sequence runtime (docs/sequences.md, "Runtime"): the due
 * enrolments, as the send engine's leased work, claimed in leased batches and each current step
 * run and recorded. An enrolment whose next step is due at once is due again as soon as its
 * record commits, so the turn claims it again: steps run back to back. Any number of dispatchers
 * run turns at once; FOR UPDATE SKIP LOCKED and the leases keep each enrolment with one of them.
 * Answers how many steps it recorded.
 */
@injectable()
export class RunSequenceSteps {
  constructor(
    @inject(SequenceRuntime) private readonly runtime: SequenceRuntime,
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(SegmentRepository) private readonly segments: SegmentRepository,
    @inject(Templates) private readonly templates: Templates,
    @inject(HtmlReader) private readonly reader: HtmlReader,
    @inject(SequenceRendering) private readonly rendering: SequenceRendering,
    @inject(SendEngine) private readonly engine: SendEngine,
    @inject(WebhookSender) private readonly webhooks: WebhookSender,
    @inject(WebhookDestinations) private readonly destinations: WebhookDestinations,
    @inject(Clock) private readonly clock: Clock,
    @inject(RandomSource) private readonly random: RandomSource,
    @inject(SendingOptions) private readonly options: SendingOptions,
    @inject(SequenceStepGuard) private readonly guard: SequenceStepGuard,
  ) {}

  /**
   * docs/reputation-guard.md, "Sequence email steps": after a group commits, each step with a
   * hard bounce in it, or whose bounces waited for `min_sent` at the last look, is judged. A
   * failed check is skipped (the outcomes are committed); the next group's runs again.
   */
  private async guardSteps(group: readonly StepRecord[], pending: Set<number>): Promise<void> {
    const steps = new Set<number>();
    for (const r of group) {
      if (r.email === undefined) continue;
      if (r.email.kind === 'bounced' || pending.has(r.email.stepId)) steps.add(r.email.stepId);
    }
    for (const stepId of steps) {
      try {
        const { pending: waits } = await this.guard.check(stepId);
        if (waits) pending.add(stepId);
        else pending.delete(stepId);
      } catch {
        // Judged again after the next group.
      }
    }
  }

  async execute(): Promise<number> {
    const o = this.options;
    const worker = `${o.workerName ?? 'worker'}:seq:${hex(this.random.bytes(6))}`;
    const deadline = this.engine.now() + TURN_MS;
    const stopping = () => o.stopRequested?.() === true;
    const performer = new StepPerformer({
      runtime: this.runtime,
      repositories: this.repositories,
      segments: this.segments,
      templates: this.templates,
      reader: this.reader,
      rendering: this.rendering,
      engine: this.engine,
      webhooks: this.webhooks,
      destinations: this.destinations,
      random: this.random,
      publicUrl: o.publicUrl,
      retryScheduleMs: o.retryScheduleMs,
    });
    let recorded = 0;
    const pending = new Set<number>();
    const work: LeasedWork<DueEnrolment, StepRecord> = {
      goesOn: async () => !stopping(),
      claim: async ({ worker: w, limit, leaseMs }) => {
        // Always from the earliest due: what a record made due again is found at once.
        const items = await this.runtime.claim(w, this.clock.now(), leaseMs, limit);
        return { items, settled: 0, lastId: items.at(-1)?.id ?? null };
      },
      extendLeases: (w, leaseMs) => this.runtime.extendLeases(w, leaseMs),
      release: (w) => this.runtime.release(w),
      perform: (enrolment, signal) => performer.perform(enrolment, signal, this.clock.now()),
      record: async (group) => {
        const n = await this.runtime.record(worker, group);
        recorded += n;
        await this.guardSteps(group, pending);
        return n;
      },
      progressed: async () => undefined,
    };
    const run = this.engine.run(work, {
      worker,
      concurrency: o.concurrency,
      claimBatchSize: o.claimBatchSize,
      leaseMs: o.leaseMs,
      statusPollMs: 1_000,
      commitGroup: o.commitGroup,
      handOver: () => stopping() || this.engine.now() > deadline,
    });
    try {
      // A drain ends when a claim finds nothing, possibly while records it made due were still
      // committing: drain again until one records nothing.
      for (;;) {
        const before = recorded;
        const end = await run.drain();
        if (end !== 'exhausted' || recorded === before) return recorded;
      }
    } finally {
      run.close();
      await performer.close();
    }
  }
}
