import {
  evaluateCondition,
  httpStepVerdict,
  nextStep,
  providerHeaders,
  senderAddress,
  sequenceUnsubscribeToken,
  stepDueAt,
  usableEmailServers,
  type RuntimeStep,
  type SegmentDefinition,
} from '@mailcast/domain';
import type {
  Channel,
  DueEnrolment,
  EmailServer,
  EnrolmentNext,
  HtmlReader,
  RandomSource,
  Repositories,
  SegmentRepository,
  SendEngine,
  Sequence,
  SequenceRendering,
  SequenceRuntime,
  SequenceStepRenderer,
  StepRecord,
  Templates,
  WebhookDestinations,
  WebhookSender,
} from '../ports';
import { decideSettlement } from '../sending/outcome-settlement';
import { trackableLinksOf } from '../sending/tracking-html';
import { preferencesUrl } from '../topics/preferences';
import { sequenceScope } from './sequence-email';

/** What the performer reads once per turn and shares between enrolments of one sequence. */
interface Loaded {
  sequence: Sequence;
  steps: RuntimeStep[];
  servers: EmailServer[];
  channel: Channel | null;
  excluded: SegmentDefinition[];
  secret: Uint8Array;
  /** Per send_email step, its tracked links (none when the sequence does not track clicks). */
  links: Map<number, Array<{ url: string; identifier: string }>>;
  /** Per send_email step, its renderer for this turn, made with its first email. */
  renderers: Map<number, SequenceStepRenderer>;
}

export interface PerformerPorts {
  runtime: SequenceRuntime;
  repositories: Repositories;
  segments: SegmentRepository;
  templates: Templates;
  reader: HtmlReader;
  rendering: SequenceRendering;
  engine: SendEngine;
  webhooks: WebhookSender;
  destinations: WebhookDestinations;
  random: RandomSource;
  publicUrl: string;
  retryScheduleMs: readonly number[];
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Runs one enrolment's current step (docs/sequences.md, "Runtime") and says what to record. It
 * writes nothing itself: every effect is part of the record, committed with the step's run.
 */
export class StepPerformer {
  private readonly loaded = new Map<number, Promise<Loaded | null>>();
  private readonly base: string;
  private readonly host: string;

  constructor(private readonly p: PerformerPorts) {
    this.base = p.publicUrl.replace(/\/+$/, '');
    this.host = new URL(p.publicUrl).hostname;
  }

  /** The sequence and its tree, read once per turn; `fresh` reads it again. */
  private load(sequenceId: number, fresh = false): Promise<Loaded | null> {
    if (fresh) this.loaded.delete(sequenceId);
    let found = this.loaded.get(sequenceId);
    if (found === undefined) {
      found = this.read(sequenceId);
      this.loaded.set(sequenceId, found);
      // A failed read is tried again by the next enrolment.
      found.catch(() => this.loaded.delete(sequenceId));
    }
    return found;
  }

  private async read(sequenceId: number): Promise<Loaded | null> {
    const p = this.p;
    const found = await p.runtime.sequence(sequenceId);
    if (found === null) return null;
    const { sequence } = found;
    const excluded = sequence.excludedSegmentIds.length === 0 ? [] : await p.segments.findMany(sequence.channelId, sequence.excludedSegmentIds);
    return {
      ...found,
      links: await this.trackedLinks(sequence, found.steps),
      servers: usableEmailServers(sequence, await p.repositories.emailServers.listForChannel(sequence.channelId)),
      channel: await p.repositories.channels.findById(sequence.channelId),
      excluded: excluded.map((s) => s.definition),
      secret: await p.runtime.unsubscribeSecret(sequence.id, p.random.bytes(32)),
      renderers: new Map(),
    };
  }

  /** Ends the turn's step renderers (what a render thread keeps for them). */
  async close(): Promise<void> {
    for (const found of this.loaded.values()) {
      const loaded = await found.catch(() => null);
      for (const renderer of loaded?.renderers.values() ?? []) renderer.close();
    }
    this.loaded.clear();
  }

  /** The step's renderer for this turn: its content, links and secret go to a render thread once. */
  private rendererOf(step: RuntimeStep, l: Loaded): SequenceStepRenderer {
    let renderer = l.renderers.get(step.id);
    if (renderer === undefined) {
      const { sequence } = l;
      renderer = this.p.rendering.forStep({
        channelId: sequence.channelId,
        sequence: { id: sequence.id, label: sequence.label, trackOpens: sequence.trackOpens },
        stepId: step.id,
        settings: step.settings,
        links: l.links.get(step.id) ?? [],
        secret: l.secret,
        publicUrl: this.base,
      });
      l.renderers.set(step.id, renderer);
    }
    return renderer;
  }

  /**
   * The trackable links of the sequence's send_email steps, stored before any email that
   * carries them is sent (docs/sequences.md, "Tracking"): once per turn, kept ones stay.
   */
  private async trackedLinks(sequence: Sequence, steps: readonly RuntimeStep[]): Promise<Map<number, Array<{ url: string; identifier: string }>>> {
    const byStep = new Map<number, Array<{ url: string; identifier: string }>>();
    if (!sequence.trackClicks) return byStep;
    const rows: Array<{ stepId: number; identifier: string; url: string }> = [];
    for (const step of steps) {
      if (step.action !== 'send_email') continue;
      const links = trackableLinksOf(step.settings.html_body || step.settings.body || '', this.p.reader);
      byStep.set(step.id, links);
      rows.push(...links.map((l) => ({ stepId: step.id, ...l })));
    }
    if (rows.length > 0) await this.p.runtime.saveStepLinks(rows);
    return byStep;
  }

  /** Where an enrolment goes after `step` ran at `at`: the next step's due time, or the end. */
  private advance(steps: readonly RuntimeStep[], stepId: number, at: Date, conditionResult?: boolean): EnrolmentNext {
    const next = nextStep(steps, stepId, conditionResult);
    return next === null ? { status: 'completed' } : { status: 'active', stepId: next.id, dueAt: stepDueAt(next, at), attempts: 0 };
  }

  async perform(e: DueEnrolment, signal: AbortSignal, at: Date): Promise<StepRecord> {
    const base = { enrolment: e, effects: [], at };
    // A step that ran without its enrolment moving on: its next step was deleted after this
    // turn read the tree (or the record was lost), so the tree is read again before advancing.
    const loaded = await this.load(e.sequenceId, e.currentStepRan);
    // Deleted meanwhile: its enrolments went with it, so this record finds nothing to move.
    if (loaded === null) return { ...base, ranStepId: null, next: { status: 'completed' } };
    if (!loaded.sequence.active) {
      const waiting: EnrolmentNext =
        e.currentStepId === null ? { status: 'completed' } : { status: 'active', stepId: e.currentStepId, dueAt: e.nextTriggerAt ?? at, attempts: e.attempts };
      return { ...base, ranStepId: null, next: waiting, park: true };
    }
    const step = loaded.steps.find((s) => s.id === e.currentStepId);
    // The path ended (its last step was deleted while the enrolment waited on it).
    if (step === undefined) return { ...base, ranStepId: null, next: { status: 'completed' } };
    if (e.currentStepRan) {
      return { ...base, ranStepId: null, next: this.advance(loaded.steps, step.id, at) };
    }
    const ran = (extra: Partial<StepRecord> = {}): StepRecord => ({ ...base, ranStepId: step.id, next: this.advance(loaded.steps, step.id, at), ...extra });
    const s = step.settings;
    switch (step.action) {
      case 'send_email':
        return this.sendEmail(e, step, loaded, signal, at);
      case 'condition': {
        const result = evaluateCondition(s.condition_setting ?? 'any_email_opened', await this.p.runtime.engagement(e.id));
        return { ...ran(), next: this.advance(loaded.steps, step.id, at, result) };
      }
      case 'move_to_sequence':
        return {
          ...ran(),
          next: { status: 'completed' },
          effects: [{ kind: 'move', targetSequenceId: s.target_sequence_id! }],
          movedTo: s.target_sequence_id!,
        };
      case 'add_tag_to_subscriber':
        return ran({ effects: [{ kind: 'add_tags', tags: s.tags ?? [] }] });
      case 'remove_tag_from_subscriber':
        return ran({ effects: [{ kind: 'remove_tags', tags: s.tags ?? [] }] });
      case 'deactivate_subscriber':
        return ran({ effects: [{ kind: 'deactivate' }] });
      case 'make_http_request':
        return this.httpRequest(e, step, loaded, at);
      default:
        // entry_point, branches, delays: their wait was the due time; running them moves on.
        return ran();
    }
  }

  private async sendEmail(e: DueEnrolment, step: RuntimeStep, l: Loaded, signal: AbortSignal, at: Date): Promise<StepRecord> {
    const p = this.p;
    // docs/reputation-guard.md, "Sequence email steps": at a paused step the enrolment waits,
    // parked with its due time, until a person resumes the step.
    if (e.stepPaused === true) {
      const waiting: EnrolmentNext = { status: 'active', stepId: step.id, dueAt: e.nextTriggerAt ?? at, attempts: e.attempts };
      return { enrolment: e, ranStepId: null, next: waiting, effects: [], at, holdAtPausedStep: true };
    }
    const moveOn = this.advance(l.steps, step.id, at);
    const skipped: StepRecord = { enrolment: e, ranStepId: step.id, next: moveOn, effects: [], at };
    // docs/sequences.md: not sendable, suppressed, not receiving the topic or excluded
    // subscribers get no email for this step and move on ("Topic and exclusions").
    if (!e.sendable || e.suppressed || !e.receivesTopic) return skipped;
    if (l.excluded.length > 0 && (await p.runtime.inSegments(e.channelId, e.subscriber.id, l.excluded, at))) return skipped;

    // One Message-ID per (enrolment run, step): a resend after a crash keeps it.
    const messageId = `<seq.${e.id}.${step.id}.${e.startedAt.getTime()}@${this.host}>`;
    const attempt = e.attempts + 1;
    let outcome;
    if (l.servers.length === 0) {
      outcome = { kind: 'unsendable' as const, message: 'No email server configured' };
    } else {
      try {
        // On a render thread (docs/sequences.md, "Rendering"): Liquid, the HTML read, the
        // token and the tracking edits.
        const email = await this.rendererOf(step, l).render({ enrolmentId: e.id, subscriber: e.subscriber });
        outcome = await p.engine.send(
          l.servers,
          (server) => ({
            messageId,
            from: senderAddress(server, l.channel, this.host),
            to: e.subscriber.email,
            subject: email.subject,
            text: email.text,
            html: email.html,
            headers: { ...email.headers, ...providerHeaders(server.host, messageId) },
          }),
          { signal },
        );
      } catch (error) {
        if (signal.aborted) throw error;
        outcome = { kind: 'unsendable' as const, message: `Rendering failed: ${messageOf(error)}` };
      }
    }
    const plan = decideSettlement(outcome, attempt, at, p.retryScheduleMs);
    if (plan.kind === 'delayed' || plan.kind === 'deferred') {
      // The same step again later; a deferral (the server's limits) costs no attempt.
      const again = plan.settlement.status === 'pending' ? plan.settlement.nextAttemptAt : at;
      return {
        ...skipped,
        ranStepId: null,
        next: { status: 'active', stepId: step.id, dueAt: again, attempts: plan.kind === 'deferred' ? e.attempts : attempt },
      };
    }
    const email = { stepId: step.id, messageId, kind: plan.kind, handed: plan.handed, reason: plan.reason, code: plan.code };
    return { ...skipped, email, effects: plan.kind === 'bounced' ? [{ kind: 'bounce' }] : [] };
  }

  private async httpRequest(e: DueEnrolment, step: RuntimeStep, l: Loaded, at: Date): Promise<StepRecord> {
    const p = this.p;
    const s = step.settings;
    const scope = sequenceScope(e.subscriber, l.sequence, preferencesUrl(this.base, sequenceUnsubscribeToken(l.secret, e.id, step.id)));
    const attempt = e.attempts + 1;
    const fail = (error: string): StepRecord => ({ enrolment: e, ranStepId: step.id, next: { status: 'error', error }, effects: [], at });
    const url = s.url ?? '';
    const allowed = await p.destinations.check(url);
    if (!allowed.ok) return fail(`Refused destination: ${allowed.reason}`);
    let body: string;
    try {
      body = s.body ? (await p.templates.render(e.channelId, [{ source: s.body, context: 'text' }] as const, scope))[0] : JSON.stringify(scope.subscriber);
    } catch (error) {
      return fail(`Rendering failed: ${messageOf(error)}`);
    }
    const method = s.http_method ?? 'POST';
    const result = await p.webhooks.post({ url, method, body: method === 'GET' ? '' : body, headers: { ...(s.headers ?? {}) } });
    const verdict = httpStepVerdict(result.kind === 'response' ? { status: result.status } : { failure: result.reason, message: result.message }, attempt);
    if (verdict.kind === 'error') return fail(verdict.error);
    if (verdict.kind === 'retry') {
      // A later due time, never a wait: the receiver's trouble holds no worker.
      const dueAt = new Date(at.getTime() + verdict.afterMs);
      return { enrolment: e, ranStepId: null, next: { status: 'active', stepId: step.id, dueAt, attempts: attempt }, effects: [], at };
    }
    return { enrolment: e, ranStepId: step.id, next: this.advance(l.steps, step.id, at), effects: [], at };
  }
}
