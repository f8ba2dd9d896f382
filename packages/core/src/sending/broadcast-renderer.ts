import {
  allowedCustomHeaders,
  editHtml,
  listUnsubscribeHeaders,
  preheaderHtml,
  renderedPartTooLong,
  subjectFor,
  subjectLine,
  textToHtml,
  trackingToken,
  unsubscribeFooterHtml,
  unsubscribeFooterText,
  verpAddress,
  webViewToken,
  type HtmlEdit,
} from '@mailcast/domain';
import type {
  Broadcast,
  BroadcastLink,
  BroadcastRendering,
  HtmlReader,
  JobRenderer,
  RandomSource,
  RecipientLinks,
  RecipientStore,
  RenderedEmail,
  RenderingJob,
  Templates,
} from '../ports';
import { clickEdits, openPixelHtml, trackableLinksOf } from './tracking-html';

/** A sending job's renders, and its recipients' VERP return paths (same secret as their tokens). */
export interface PreparedRendering {
  renderer: JobRenderer;
  returnPath: (recipientId: number, bounceDomain: string) => string;
}

/** Over a cap, this recipient fails with the reason (deliver: "Rendering failed: ..."). */
function capped(part: 'subject' | 'text' | 'html', value: string): string {
  const tooLong = renderedPartTooLong(part, value);
  if (tooLong !== null) throw new Error(tooLong);
  return value;
}

/**
 * Renders one broadcast for each recipient: Liquid per recipient (the templates adapter keeps
 * each parsed source), then tracking, preheader, unsubscribe link and headers. Built once per
 * broadcast and job, so the per-recipient work is rendering, one linear read of the HTML and
 * string edits (docs/security.md "HTML").
 */
export class BroadcastRenderer {
  private readonly linkByUrl: ReadonlyMap<string, BroadcastLink>;
  private readonly customHeaders: Record<string, string>;
  private readonly base: string;
  private readonly bodyIsHtml: boolean;

  constructor(
    private readonly broadcast: Broadcast,
    private readonly templates: Templates,
    private readonly reader: HtmlReader,
    links: readonly BroadcastLink[],
    publicUrl: string,
    /** The token a recipient's links carry (domain: trackingToken under the broadcast's secret). */
    private readonly tokenFor: (recipientId: number) => string,
    /** Waits for this render's turn on the event loop (the send engine's RenderTurns), if shared. */
    private readonly pace: () => Promise<void> = () => Promise.resolve(),
    /** `{{ web_view_url }}` of a recipient (docs/archive.md): their signed copy, or the archive page. */
    private readonly webViewUrlFor: (recipientId: number) => string = () => '',
  ) {
    this.linkByUrl = new Map(links.map((l) => [l.url, l]));
    this.customHeaders = allowedCustomHeaders(broadcast.emailHeaders);
    this.base = publicUrl.replace(/\/+$/, '');
    this.bodyIsHtml = reader.isHtml(broadcast.body ?? '');
  }

  /**
   * What a sending job renders with: the broadcast's trackable links saved (once, whichever job
   * comes first) and its tracking secret, kept from the first job on. The database part runs
   * here; the rendering wherever `rendering` renders.
   */
  static async prepare(
    broadcast: Broadcast,
    store: Pick<RecipientStore, 'saveLinks' | 'trackingSecret'>,
    rendering: BroadcastRendering,
    random: RandomSource,
    publicUrl: string,
  ): Promise<PreparedRendering> {
    const links = broadcast.trackClicks ? await store.saveLinks(broadcast.id, await rendering.trackableLinks(broadcast)) : [];
    const trackingSecret = await store.trackingSecret(broadcast.id, random.bytes(32));
    return {
      renderer: rendering.forJob({ broadcast, links, trackingSecret, publicUrl }),
      returnPath: (recipientId, bounceDomain) => verpAddress(trackingSecret, recipientId, bounceDomain),
    };
  }

  /** The renderer of a prepared job, in whichever thread renders it. */
  static forJob(job: RenderingJob, templates: Templates, reader: HtmlReader, pace?: () => Promise<void>): BroadcastRenderer {
    const { trackingSecret } = job;
    const base = job.publicUrl.replace(/\/+$/, '');
    return new BroadcastRenderer(
      job.broadcast,
      templates,
      reader,
      job.links,
      job.publicUrl,
      (id) => trackingToken(trackingSecret, id),
      pace,
      (id) => `${base}/w/${webViewToken(trackingSecret, id)}`,
    );
  }

  /** The distinct static http(s) links of the HTML source (a text body as it will be converted). */
  static trackableLinks(broadcast: Broadcast, reader: HtmlReader): Array<{ identifier: string; url: string }> {
    return trackableLinksOf(broadcast.htmlBody ?? broadcast.body ?? '', reader);
  }

  unsubscribeUrl(token: string): string {
    return `${this.base}/u/${token}`;
  }

  async render(recipient: RecipientLinks): Promise<RenderedEmail> {
    // Timers and I/O run between two recipients' renders, whatever the number of workers.
    await this.pace();
    const b = this.broadcast;
    const s = recipient.subscriber;
    // A subject test's recipient gets their subject, as the subject and as {{ broadcast.subject }}.
    const subjectSource = subjectFor(b.abTest, recipient.variant, b.subject);
    const token = this.tokenFor(recipient.recipientId);
    const unsubscribe = this.unsubscribeUrl(token);
    // docs/broadcasts-and-sending.md: exactly these variables are in scope.
    const scope = {
      // docs/topics.md, "The preference page": the unsubscribe link's token under /preferences/.
      preferences_url: `${this.base}/preferences/${token}`,
      subscriber: {
        email: s.email,
        first_name: s.firstName,
        last_name: s.lastName,
        tags: s.tags,
        custom_data: s.customData,
      },
      broadcast: { name: b.name, subject: subjectSource },
      web_view_url: this.webViewUrlFor(recipient.recipientId),
    };
    const body = b.body ?? '';
    const bodyIsHtml = this.bodyIsHtml;
    const bodyContext = bodyIsHtml ? 'html' : 'text';
    // Every Liquid part of the email in one render (one time limit, one turn of the channel's,
    // docs/templates.md "Rendering"): the subject, the HTML part's source, and the text part's
    // when it has its own (a body beside an html_body).
    const ownText = Boolean(b.htmlBody) && body.trim() !== '';
    const [renderedSubject, renderedHtml, renderedText] = await this.templates.render(
      b.channelId,
      [
        { source: subjectSource, context: 'text' },
        b.htmlBody ? { source: b.htmlBody, context: 'html' } : { source: body, context: bodyContext },
        { source: ownText ? body : '', context: bodyContext },
      ],
      scope,
    );
    const subject = capped('subject', subjectLine(renderedSubject));

    let html: string;
    if (b.htmlBody || bodyIsHtml) html = renderedHtml;
    else html = textToHtml(capped('text', renderedHtml));
    capped('html', html);
    const doc = this.reader.read(html);

    let text: string;
    if (ownText) {
      // An HTML body is rendered escaped like any HTML, then read as text (entities decoded).
      const rendered = capped(bodyContext, renderedText);
      text = bodyIsHtml ? this.reader.read(rendered).text : rendered;
    } else if (!b.htmlBody && !bodyIsHtml) {
      text = renderedHtml;
    } else {
      text = doc.text;
    }

    const edits: HtmlEdit[] = b.trackClicks && this.linkByUrl.size > 0 ? clickEdits(doc, (url) => this.linkByUrl.get(url)?.identifier, this.base, token) : [];
    const bodyStart = doc.bodyStart ?? 0;
    if (b.preheader) edits.push({ start: bodyStart, end: bodyStart, text: preheaderHtml(b.preheader) });
    const bodyEnd = doc.bodyEnd ?? html.length;
    if (b.includeUnsubscribeLink) {
      edits.push({ start: bodyEnd, end: bodyEnd, text: unsubscribeFooterHtml(unsubscribe) });
      text += unsubscribeFooterText(unsubscribe);
    }
    if (b.trackOpens) {
      edits.push({ start: bodyEnd, end: bodyEnd, text: openPixelHtml(this.base, token) });
    }
    html = editHtml(html, edits);
    return {
      subject,
      text,
      html,
      headers: {
        ...this.customHeaders,
        // RFC 8058: an HTTPS (here PUBLIC_URL) URI the receiver POSTs to without a confirmation.
        ...listUnsubscribeHeaders(unsubscribe),
      },
    };
  }
}
