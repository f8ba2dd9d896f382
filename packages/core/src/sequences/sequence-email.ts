import {
  editHtml,
  listUnsubscribeHeaders,
  preheaderHtml,
  renderedPartTooLong,
  sequenceUnsubscribeToken,
  subjectLine,
  textToHtml,
  unsubscribeFooterHtml,
  unsubscribeFooterText,
  type HtmlEdit,
} from '@mailcast/domain';
import type { HtmlReader, RenderedEmail, SequenceEmailFor, SequenceStepJob, SubscriberSnapshot, Templates } from '../ports';
import { clickEdits, openPixelHtml } from '../sending/tracking-html';

function capped(part: 'subject' | 'text' | 'html', value: string): string {
  const tooLong = renderedPartTooLong(part, value);
  if (tooLong !== null) throw new Error(tooLong);
  return value;
}

/** The Liquid scope of a sequence email (docs/sequences.md, "Runtime"): exactly these variables. */
export function sequenceScope(subscriber: SubscriberSnapshot, sequence: { id: number; label: string }, preferencesUrl: string) {
  return {
    // docs/topics.md, "The preference page".
    preferences_url: preferencesUrl,
    subscriber: {
      email: subscriber.email,
      first_name: subscriber.firstName,
      last_name: subscriber.lastName,
      tags: subscriber.tags,
      custom_data: subscriber.customData,
    },
    sequence: { id: sequence.id, label: sequence.label },
  };
}

/**
 * Renders one send_email step for its enrolments as broadcasts are rendered (one Liquid render of
 * every part, tracked links, the preheader first in the body, the unsubscribe link and open pixel
 * last, RFC 8058 headers). Built once per step and turn, in whichever thread renders it
 * (docs/sequences.md, "Rendering"): each email then costs its render, one read of the HTML, its
 * token and string edits.
 */
export class SequenceEmailRenderer {
  private readonly base: string;
  private readonly linkByUrl: ReadonlyMap<string, string>;
  private readonly bodyIsHtml: boolean;

  constructor(
    private readonly job: SequenceStepJob,
    private readonly templates: Templates,
    private readonly reader: HtmlReader,
  ) {
    this.base = job.publicUrl.replace(/\/+$/, '');
    this.linkByUrl = new Map(job.links.map((l) => [l.url, l.identifier]));
    this.bodyIsHtml = reader.isHtml(job.settings.body ?? '');
  }

  async render(email: SequenceEmailFor): Promise<RenderedEmail> {
    const { settings: s, sequence } = this.job;
    const token = sequenceUnsubscribeToken(this.job.secret, email.enrolmentId, this.job.stepId);
    const unsubscribeUrl = `${this.base}/u/${token}`;
    // docs/topics.md, "The preference page": the unsubscribe link's token under /preferences/.
    const scope = sequenceScope(email.subscriber, sequence, `${this.base}/preferences/${token}`);
    const body = s.body ?? '';
    const bodyIsHtml = this.bodyIsHtml;
    const bodyContext = bodyIsHtml ? 'html' : 'text';
    const ownText = Boolean(s.html_body) && body.trim() !== '';
    const [renderedSubject, renderedHtml, renderedText] = await this.templates.render(
      this.job.channelId,
      [
        { source: s.subject ?? '', context: 'text' },
        s.html_body ? { source: s.html_body, context: 'html' } : { source: body, context: bodyContext },
        { source: ownText ? body : '', context: bodyContext },
      ],
      scope,
    );
    const subject = capped('subject', subjectLine(renderedSubject));
    let html = s.html_body || bodyIsHtml ? renderedHtml : textToHtml(capped('text', renderedHtml));
    capped('html', html);
    const doc = this.reader.read(html);
    let text: string;
    if (ownText) text = bodyIsHtml ? this.reader.read(capped(bodyContext, renderedText)).text : capped(bodyContext, renderedText);
    else if (!s.html_body && !bodyIsHtml) text = renderedHtml;
    else text = doc.text;

    const edits: HtmlEdit[] = this.linkByUrl.size > 0 ? clickEdits(doc, (url) => this.linkByUrl.get(url), this.base, token) : [];
    const bodyStart = doc.bodyStart ?? 0;
    if (s.preheader) edits.push({ start: bodyStart, end: bodyStart, text: preheaderHtml(s.preheader) });
    const bodyEnd = doc.bodyEnd ?? html.length;
    edits.push({ start: bodyEnd, end: bodyEnd, text: unsubscribeFooterHtml(unsubscribeUrl) });
    if (sequence.trackOpens) edits.push({ start: bodyEnd, end: bodyEnd, text: openPixelHtml(this.base, token) });
    text += unsubscribeFooterText(unsubscribeUrl);
    html = editHtml(html, edits);
    return { subject, text, html, headers: listUnsubscribeHeaders(unsubscribeUrl) };
  }
}
