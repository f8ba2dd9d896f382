import { escapeHtml, subjectLine } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { ValidationError } from '../errors';
import { HtmlReader, Repositories, Templates, type Broadcast, type SubscriberSnapshot, type TemplatePurpose } from '../ports';
import { BroadcastRenderer } from '../sending/broadcast-renderer';

/** The subscriber a preview renders for; absent fields take the sample's (docs/templates.md "Preview"). */
export interface PreviewSubscriber {
  email?: string;
  firstName?: string | null;
  lastName?: string | null;
  tags?: string[];
  customData?: Record<string, unknown>;
}

/** Unsaved template content, already type-checked at the edge. */
export interface PreviewTemplateInput {
  subject?: string | null;
  preheader?: string | null;
  body?: string | null;
  htmlBody?: string | null;
  purpose?: TemplatePurpose;
  subscriber?: PreviewSubscriber;
}

export interface TemplatePreview {
  subject: string;
  preheader: string | null;
  text: string;
  html: string;
}

export const SAMPLE_SUBSCRIBER: Required<PreviewSubscriber> = {
  email: 'jane.doe@example.com',
  firstName: 'Jane',
  lastName: 'Doe',
  tags: ['sample'],
  customData: {},
};

/** Where links that would name a recipient point in a preview: nowhere that records anything. */
const PREVIEW_TOKEN = 'preview';
const PLACEHOLDER_URL = 'https://example.com/preview-link';

/** How liquidjs ends the message of an error it can place. */
const LIQUID_POSITION = /, line:\d+, col:\d+$/;

const LIQUID_FIELDS = [
  ['subject', 'subject'],
  ['preheader', 'preheader'],
  ['body', 'body'],
  ['htmlBody', 'html_body'],
] as const;

/**
 * Template content rendered before it is saved (the dashboard's editor): parsed as at save, so a
 * Liquid error answers the save's 422 per field with its line and column, then rendered on the
 * templates threads under their time limit, exactly as a broadcast written from it would be
 * (docs/templates.md "Preview"). Nothing is stored.
 */
@injectable()
export class PreviewTemplate {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Templates) private readonly templates: Templates,
    @inject(HtmlReader) private readonly reader: HtmlReader,
  ) {}

  async execute(caller: Principal, input: PreviewTemplateInput): Promise<TemplatePreview> {
    const errors: Record<string, string[]> = {};
    for (const [key, name] of LIQUID_FIELDS) {
      const source = input[key];
      if (source === undefined || source === null) continue;
      const problem = this.templates.check(source);
      if (problem !== null) errors[name] = [`is not valid Liquid: ${problem}`];
    }
    if (Object.keys(errors).length > 0) throw ValidationError.forFields(errors);

    const subscriber = { ...SAMPLE_SUBSCRIBER, ...input.subscriber };
    try {
      if (input.purpose === 'confirmation') return await this.confirmation(caller, input, subscriber);
      return await this.broadcast(caller, input, subscriber);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // A Liquid runtime error names its line and column but not its field: find the field, so
      // the editor shows it under it. A time-out or a stopped thread has no position, and is
      // not tried again (that would cost another time limit).
      if (LIQUID_POSITION.test(message)) {
        const field = await this.failingField(caller, input, subscriber);
        if (field !== null) throw ValidationError.forFields({ [field.name]: [`cannot be rendered: ${field.message}`] });
      }
      throw new ValidationError(`Template cannot be rendered: ${message}`);
    }
  }

  /** The first Liquid field that fails alone, in the broadcast scope; null when none does. */
  private async failingField(
    caller: Principal,
    input: PreviewTemplateInput,
    subscriber: Required<PreviewSubscriber>,
  ): Promise<{ name: string; message: string } | null> {
    const scope = {
      confirmation_url: PLACEHOLDER_URL,
      unsubscribe_url: PLACEHOLDER_URL,
      preferences_url: PLACEHOLDER_URL,
      web_view_url: PLACEHOLDER_URL,
      subscriber: {
        email: subscriber.email,
        first_name: subscriber.firstName,
        last_name: subscriber.lastName,
        tags: subscriber.tags,
        custom_data: subscriber.customData,
      },
      broadcast: { name: null, subject: input.subject ?? '' },
      channel: { name: '' },
    };
    for (const [key, name] of LIQUID_FIELDS) {
      const source = input[key];
      if (source === undefined || source === null || source === '') continue;
      try {
        await this.templates.render(caller.channelId, [{ source, context: key === 'htmlBody' ? 'html' : 'text' }] as const, scope);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return LIQUID_POSITION.test(message) ? { name, message } : null;
      }
    }
    return null;
  }

  /** As a broadcast written from the template is rendered: the sending pipeline's own renderer, untracked. */
  private async broadcast(caller: Principal, input: PreviewTemplateInput, subscriber: Required<PreviewSubscriber>): Promise<TemplatePreview> {
    const now = new Date(0);
    const draft: Broadcast = {
      id: 0,
      channelId: caller.channelId,
      name: null,
      subject: input.subject ?? '',
      preheader: input.preheader ?? null,
      body: input.body ?? null,
      htmlBody: input.htmlBody ?? null,
      includeUnsubscribeLink: false,
      replyTo: null,
      status: 'draft',
      trackOpens: false,
      trackClicks: false,
      useAnyEmailServer: true,
      emailHeaders: [],
      tags: [],
      segmentIds: [],
      topicId: null,
      excludedSegmentIds: [],
      templateId: null,
      emailServerIds: [],
      totalRecipients: 0,
      broadcastRecipientsCount: 0,
      scheduledSendAt: null,
      scheduledTimezone: null,
      beginSendAt: null,
      sentAt: null,
      pausedFrom: null,
      archive: false,
      sendInSubscriberTimezone: false,
      version: 0,
      createdAt: now,
      updatedAt: now,
    };
    const renderer = new BroadcastRenderer(
      draft,
      this.templates,
      this.reader,
      [],
      '',
      () => PREVIEW_TOKEN,
      undefined,
      () => PLACEHOLDER_URL,
    );
    const snapshot: SubscriberSnapshot = { id: 0, ...subscriber, isActive: true, source: 'preview', subscribedAt: now, unsubscribedAt: null };
    const email = await renderer.render({ recipientId: 0, subscriber: snapshot });
    return { subject: email.subject, preheader: draft.preheader, text: email.text, html: email.html };
  }

  /** As a double opt-in email is rendered (text only, docs/subscribers.md), with a placeholder link. */
  private async confirmation(caller: Principal, input: PreviewTemplateInput, subscriber: Required<PreviewSubscriber>): Promise<TemplatePreview> {
    const channel = await this.repositories.channels.findById(caller.channelId);
    const scope = {
      confirmation_url: PLACEHOLDER_URL,
      unsubscribe_url: PLACEHOLDER_URL,
      subscriber: {
        email: subscriber.email,
        first_name: subscriber.firstName,
        last_name: subscriber.lastName,
        tags: subscriber.tags,
        custom_data: subscriber.customData,
      },
      channel: { name: channel?.name ?? '' },
    };
    const [subject, text] = await this.templates.render(
      caller.channelId,
      [
        { source: input.subject ?? '', context: 'text' },
        { source: input.body ?? '', context: 'text' },
      ] as const,
      scope,
    );
    return { subject: subjectLine(subject), preheader: null, text, html: `<pre>${escapeHtml(text)}</pre>` };
  }
}
