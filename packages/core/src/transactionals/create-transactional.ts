import { canonicalEmail, emailServerFor, IDEMPOTENCY_TTL_MS, isValidEmail, requestFingerprint } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { callerKey, type Principal } from '../auth/authenticate';
import { ConflictError, ValidationError } from '../errors';
import { Clock, PublicLinks, RandomSource, Repositories, Templates, Transactor, type Transactional } from '../ports';
import { issueConfirmation, SMTP_NOT_CONFIGURED } from '../subscribers/create-subscriber';

/** The request's fields, already type-checked (docs/transactionals.md). */
export interface TransactionalInput {
  to: string;
  subject?: string;
  body?: string;
  htmlBody?: string | null;
  preheader?: string | null;
  replyTo?: string | null;
  data: Record<string, unknown>;
  subscriber: { firstName?: string | null; lastName?: string | null; customData?: Record<string, unknown> };
  includeUnsubscribeLink: boolean;
  doubleOptIn: boolean;
  emailServerId?: number;
  templateId?: number;
}

export const IDEMPOTENCY_IN_PROGRESS = 'A request with this Idempotency-Key is still in progress';
export const IDEMPOTENCY_OTHER_BODY = 'Idempotency-Key was already used with a different request body';

export type TransactionalAnswer = (t: Transactional) => Record<string, unknown>;

/**
 * Accepts one transactional email: the subscriber is created on first send, a suppressed address
 * is recorded as `suppressed` and never queued, anything else is queued for the dispatcher in the
 * transaction that writes it. With an Idempotency-Key the answer is stored beside the work.
 */
@injectable()
export class CreateTransactional {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Templates) private readonly templates: Templates,
    @inject(Clock) private readonly clock: Clock,
    @inject(RandomSource) private readonly random: RandomSource,
    @inject(PublicLinks) private readonly links: PublicLinks,
  ) {}

  async execute(
    caller: Principal,
    request: { input: TransactionalInput; rawBody: unknown; idempotencyKey?: string; answer: TransactionalAnswer },
  ): Promise<{ status: number; body: Record<string, unknown>; replayed: boolean }> {
    const key = request.idempotencyKey;
    if (key === undefined) {
      const body = await this.transactor.run(async (r) => request.answer(await this.create(r, caller, request.input)));
      return { status: 201, body, replayed: false };
    }
    const now = this.clock.now();
    const claim = await this.repositories.idempotency.claim(
      callerKey(caller),
      key,
      requestFingerprint(request.rawBody),
      now,
      new Date(now.getTime() - IDEMPOTENCY_TTL_MS),
    );
    if (claim.kind === 'replay') return { status: claim.status, body: claim.body, replayed: true };
    if (claim.kind === 'in_progress') throw new ConflictError(IDEMPOTENCY_IN_PROGRESS);
    if (claim.kind === 'other_body') throw new ValidationError(IDEMPOTENCY_OTHER_BODY);
    try {
      const body = await this.transactor.run(async (r) => {
        const answer = request.answer(await this.create(r, caller, request.input));
        await r.idempotency.complete(callerKey(caller), key, 201, answer);
        return answer;
      });
      return { status: 201, body, replayed: false };
    } catch (error) {
      await this.repositories.idempotency.release(callerKey(caller), key);
      throw error;
    }
  }

  private async create(r: Repositories, caller: Principal, input: TransactionalInput): Promise<Transactional> {
    const channelId = caller.channelId;
    const to = canonicalEmail(input.to) ?? '';
    const errors: Record<string, string[]> = {};
    if (to === '') errors.to = ['is invalid'];
    let { subject, body, htmlBody, preheader } = input;
    if (input.templateId !== undefined) {
      const template = await r.templates.findById(channelId, input.templateId);
      if (template === null || template.purpose !== 'broadcast') errors.template_id = ['does not exist'];
      else {
        subject ??= template.subject ?? undefined;
        body ??= template.body ?? undefined;
        htmlBody ??= template.htmlBody;
        preheader ??= template.preheader;
      }
    }
    if (subject === undefined || subject.trim() === '') errors.subject = ["can't be blank"];
    if (body === undefined || body.trim() === '') errors.body = ["can't be blank"];
    for (const [name, source] of [
      ['subject', subject],
      ['body', body],
      ['html_body', htmlBody],
      ['preheader', preheader],
    ] as const) {
      const problem = typeof source === 'string' ? this.templates.check(source) : null;
      if (problem !== null) (errors[name] ??= []).push(`is not valid Liquid: ${problem}`);
    }
    if (input.replyTo && !isValidEmail(input.replyTo.trim())) errors.reply_to = ['is invalid'];
    if (input.emailServerId !== undefined) {
      const servers = await r.emailServers.listForChannel(channelId);
      if (!servers.some((s) => s.id === input.emailServerId)) errors.email_server_id = ['does not exist'];
    }
    if (Object.keys(errors).length > 0) throw ValidationError.forFields(errors);
    // Held for a confirmation that could never be emailed: refused, as double opt-in is for subscribers.
    if (input.doubleOptIn && emailServerFor(await r.emailServers.listForChannel(channelId)) === undefined) {
      throw new ValidationError(SMTP_NOT_CONFIGURED);
    }

    const now = this.clock.now();
    const s = input.subscriber;
    // First send creates the subscriber; its subscription state never stops a transactional.
    // With double opt-in the row is locked, so a confirmation cannot slip between the check and
    // the hold below.
    const subscriber =
      (await r.subscribers.insertIfAbsent(
        {
          channelId,
          email: to,
          requiresConfirmation: input.doubleOptIn,
          source: 'transactional',
          firstName: s.firstName ?? null,
          lastName: s.lastName ?? null,
          customData: s.customData ?? {},
        },
        now,
      )) ?? (await r.subscribers.findByEmail(channelId, to, { forUpdate: input.doubleOptIn }));
    if (subscriber === null) throw new Error(`subscriber ${to} vanished while a transactional was created`);
    const suppressed = (await r.suppressions.find(channelId, to)) !== null;
    // Double opt-in holds the email until the recipient confirms (ConfirmSubscription queues it).
    const held = !suppressed && input.doubleOptIn && subscriber.confirmedAt === null;
    const created = await r.transactionals.create(
      {
        channelId,
        subscriberId: subscriber.id,
        to,
        subject: subject!,
        preheader: preheader ?? null,
        body: body!,
        htmlBody: htmlBody ?? null,
        replyTo: input.replyTo?.trim() || null,
        data: input.data,
        includeUnsubscribeLink: input.includeUnsubscribeLink,
        // Signs the unsubscribe link; made here so every attempt renders the same URL.
        unsubscribeSecret: input.includeUnsubscribeLink ? this.random.bytes(32) : null,
        emailServerId: input.emailServerId ?? null,
        templateId: input.templateId ?? null,
        status: suppressed ? 'suppressed' : held ? 'awaiting_confirmation' : 'queued',
      },
      now,
    );
    if (held) {
      const options = { replyTo: input.replyTo?.trim() || null, templateId: null, includeUnsubscribeLink: false };
      await issueConfirmation(r, { random: this.random, links: this.links }, subscriber, options, now);
    } else if (!suppressed) {
      await r.jobs.send('transactionals.send', { transactionalId: created.id }, { wake: true });
    }
    return created;
  }
}
