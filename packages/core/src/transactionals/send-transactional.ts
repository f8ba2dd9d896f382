import { emailServerFor, senderAddress, subjectLine, type EventType } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { Clock, HtmlReader, RandomSource, Repositories, SendEngine, Templates, Transactor, type Transactional } from '../ports';
import { SendingOptions } from '../sending/sending-options';
import { transactionalPreferencesUrl, transactionalUnsubscribeUrl, withUnsubscribeLink } from './unsubscribe-link';

export type TransactionalOutcome = 'sent' | 'bounced' | 'failed' | 'retry_scheduled' | 'deferred' | 'suppressed' | 'stale' | 'no_email_server';

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** The `email.*` event data of a transactional: `transactional_id` where a broadcast's has `broadcast_id`. */
function eventData(t: Transactional, messageId: string, extra: { delivered?: boolean; bouncedReason?: string | null } = {}) {
  return {
    transactional_id: t.id,
    receipt_id: t.id,
    email: t.to,
    identifier: messageId,
    receipted_type: 'Transactional',
    receipted_id: t.id,
    delivered: extra.delivered ?? false,
    opened: false,
    clicked: false,
    bounced: extra.bouncedReason != null,
    complaint: false,
    unsubscribed: false,
    opened_at: null,
    clicked_at: null,
    bounced_reason: extra.bouncedReason ?? null,
    complaint_reason: null,
  };
}

/**
 * The `transactionals.send` job (docs/transactionals.md): claims the row, checks the suppression
 * lists again, renders with `subscriber`, `data` and `unsubscribe_url`, sends once through the named or the
 * channel's first email server, and records the outcome with its events in one transaction.
 */
@injectable()
export class SendTransactional {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(SendEngine) private readonly engine: SendEngine,
    @inject(Templates) private readonly templates: Templates,
    @inject(Clock) private readonly clock: Clock,
    @inject(RandomSource) private readonly random: RandomSource,
    @inject(SendingOptions) private readonly options: SendingOptions,
    @inject(HtmlReader) private readonly reader: HtmlReader,
  ) {}

  async execute(input: { transactionalId: number; attempt?: number; deferrals?: number }): Promise<TransactionalOutcome> {
    const attempt = input.attempt ?? 1;
    // Returns to the queue for the server's sending limits count as claims, not as tries.
    const deferrals = input.deferrals ?? 0;
    const host = new URL(this.options.publicUrl).hostname || 'mailcast.invalid';
    const r = this.repositories;
    const fresh = `<transactional.${input.transactionalId}.${hex(this.random.bytes(6))}@${host}>`;
    const t = await r.transactionals.claimForSending(input.transactionalId, attempt, fresh, this.clock.now());
    if (t === null) return 'stale';
    // A retry keeps the first attempt's Message-ID: it is the same email.
    const messageId = t.messageId ?? fresh;
    // Side by side: a transactional's latency is mostly these round trips.
    const [suppression, servers, channel, subscriber] = await Promise.all([
      r.suppressions.find(t.channelId, t.to),
      r.emailServers.listForChannel(t.channelId),
      r.channels.findById(t.channelId),
      r.subscribers.findById(t.channelId, t.subscriberId),
    ]);
    if (suppression !== null) {
      await r.transactionals.settle(t.id, { status: 'suppressed' }, this.clock.now());
      return 'suppressed';
    }
    const server = emailServerFor(servers, t.emailServerId);
    if (server === undefined || channel === null) {
      await r.transactionals.settle(t.id, { status: 'failed', error: 'No email server configured' }, this.clock.now());
      return 'no_email_server';
    }
    const unsubscribeUrl = transactionalUnsubscribeUrl(this.options.publicUrl, t);
    const scope = {
      data: t.data,
      unsubscribe_url: unsubscribeUrl ?? '',
      // docs/topics.md, "The preference page": beside the unsubscribe link, empty without it.
      preferences_url: transactionalPreferencesUrl(this.options.publicUrl, t) ?? '',
      subscriber: {
        email: t.to,
        first_name: subscriber?.firstName ?? null,
        last_name: subscriber?.lastName ?? null,
        tags: subscriber?.tags ?? [],
        custom_data: subscriber?.customData ?? {},
      },
    };
    let rendered: { subject: string; text: string; html: string | null; headers: Record<string, string> };
    try {
      // One render for the email's parts, on the channel's turn (docs/templates.md "Rendering").
      const [subject, text, htmlPart] = await this.templates.render(
        t.channelId,
        [
          { source: t.subject, context: 'text' },
          { source: t.body, context: 'text' },
          { source: t.htmlBody ?? '', context: 'html' },
        ],
        scope,
      );
      const html = t.htmlBody === null ? null : htmlPart;
      const parts = unsubscribeUrl === null ? { text, html, headers: {} } : withUnsubscribeLink(this.reader, unsubscribeUrl, { text, html });
      rendered = { subject: subjectLine(subject), ...parts };
    } catch (error) {
      await this.record(t, messageId, { status: 'failed', error: `Rendering failed: ${(error as Error).message}` }, []);
      return 'failed';
    }
    const email = {
      messageId,
      from: senderAddress(server, channel, host),
      to: t.to,
      replyTo: t.replyTo,
      subject: rendered.subject,
      text: rendered.text,
      html: rendered.html,
      headers: rendered.headers,
    };
    // The server's sending limits hold for transactionals too: the same gate as broadcasts.
    const outcome = await this.engine.send([server], () => email, { priority: true });
    if (outcome.kind === 'deferred') {
      // No slot soon (docs/sending-limits.md): back to the queue, no event, no try used up.
      await this.record(t, messageId, { status: 'queued', error: outcome.message }, [], false, async (tx) => {
        await tx.jobs.send('transactionals.send', { transactionalId: t.id, attempt: attempt + 1, deferrals: deferrals + 1 }, { startAfter: outcome.until });
      });
      return 'deferred';
    }
    if (outcome.kind === 'accepted') {
      await this.record(t, messageId, { status: 'sent', error: null, sentAt: this.clock.now() }, [
        ['email.sent', eventData(t, messageId)],
        ['email.delivered', eventData(t, messageId, { delivered: true })],
      ]);
      return 'sent';
    }
    const handed: Array<[EventType, Record<string, unknown>]> = outcome.code === null ? [] : [['email.sent', eventData(t, messageId)]];
    if (outcome.permanent) {
      await this.record(
        t,
        messageId,
        { status: 'bounced', error: outcome.message },
        [...handed, ['email.bounced', eventData(t, messageId, { bouncedReason: outcome.message })]],
        true,
      );
      return 'bounced';
    }
    // Temporary (4xx, or the server unreachable): retried on the sending schedule, then failed.
    const delay = this.options.retryScheduleMs[attempt - 1 - deferrals];
    if (delay === undefined) {
      await this.record(t, messageId, { status: 'failed', error: outcome.message }, [...handed, ['email.failed', eventData(t, messageId)]]);
      return 'failed';
    }
    const startAfter = new Date(this.clock.now().getTime() + delay);
    await this.record(
      t,
      messageId,
      { status: 'queued', error: outcome.message },
      [...handed, ['email.delivery_delayed', eventData(t, messageId)]],
      false,
      async (tx) => {
        await tx.jobs.send('transactionals.send', { transactionalId: t.id, attempt: attempt + 1, deferrals }, { startAfter });
      },
    );
    return 'retry_scheduled';
  }

  private record(
    t: Transactional,
    messageId: string,
    change: { status: 'sent' | 'bounced' | 'failed' | 'queued'; error?: string | null; sentAt?: Date },
    events: Array<[EventType, Record<string, unknown>]>,
    suppress = false,
    also?: (r: Repositories) => Promise<void>,
  ): Promise<void> {
    const now = this.clock.now();
    return this.transactor.run(async (r) => {
      await r.transactionals.settle(t.id, { ...change, messageId }, now);
      for (const [type, data] of events) await r.outbox.record({ channelId: t.channelId, type, data, createdAt: now });
      // A hard bounce puts the address on the channel's list (docs/suppressions.md).
      if (suppress) await r.suppressions.add(t.channelId, t.to, 'bounce', now);
      await also?.(r);
    });
  }
}
