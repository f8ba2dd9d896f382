import {
  editHtml,
  listUnsubscribeHeaders,
  preheaderHtml,
  renderedPartTooLong,
  subjectLine,
  textToHtml,
  unsubscribeFooterHtml,
  unsubscribeFooterText,
  type HtmlEdit,
  type StepSettings,
} from '@mailcast/domain';
import type { HtmlReader, RenderedEmail, SubscriberSnapshot, Templates } from '../ports';
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

/** A sequence email's tracking (docs/sequences.md, "Tracking"): its token, and what is tracked. */
export interface SequenceTracking {
  base: string;
  token: string;
  opens: boolean;
  /** The identifier of a tracked link of the step (its stored links), or undefined. */
  linkOf: (url: string) => string | undefined;
}

/**
 * Renders one send_email step for one subscriber as broadcasts are rendered (one Liquid render
 * of every part, tracked links, the preheader first in the body, the unsubscribe link and open
 * pixel last, RFC 8058 headers).
 */
export async function renderSequenceEmail(
  templates: Templates,
  reader: HtmlReader,
  input: {
    channelId: number;
    settings: StepSettings;
    scope: ReturnType<typeof sequenceScope>;
    unsubscribeUrl: string;
    tracking: SequenceTracking;
  },
): Promise<RenderedEmail> {
  const s = input.settings;
  const body = s.body ?? '';
  const bodyIsHtml = reader.isHtml(body);
  const bodyContext = bodyIsHtml ? 'html' : 'text';
  const ownText = Boolean(s.html_body) && body.trim() !== '';
  const [renderedSubject, renderedHtml, renderedText] = await templates.render(
    input.channelId,
    [
      { source: s.subject ?? '', context: 'text' },
      s.html_body ? { source: s.html_body, context: 'html' } : { source: body, context: bodyContext },
      { source: ownText ? body : '', context: bodyContext },
    ],
    input.scope,
  );
  const subject = capped('subject', subjectLine(renderedSubject));
  let html = s.html_body || bodyIsHtml ? renderedHtml : textToHtml(capped('text', renderedHtml));
  capped('html', html);
  const doc = reader.read(html);
  let text: string;
  if (ownText) text = bodyIsHtml ? reader.read(capped(bodyContext, renderedText)).text : capped(bodyContext, renderedText);
  else if (!s.html_body && !bodyIsHtml) text = renderedHtml;
  else text = doc.text;

  const t = input.tracking;
  const edits: HtmlEdit[] = clickEdits(doc, t.linkOf, t.base, t.token);
  const bodyStart = doc.bodyStart ?? 0;
  if (s.preheader) edits.push({ start: bodyStart, end: bodyStart, text: preheaderHtml(s.preheader) });
  const bodyEnd = doc.bodyEnd ?? html.length;
  edits.push({ start: bodyEnd, end: bodyEnd, text: unsubscribeFooterHtml(input.unsubscribeUrl) });
  if (t.opens) edits.push({ start: bodyEnd, end: bodyEnd, text: openPixelHtml(t.base, t.token) });
  text += unsubscribeFooterText(input.unsubscribeUrl);
  html = editHtml(html, edits);
  return { subject, text, html, headers: listUnsubscribeHeaders(input.unsubscribeUrl) };
}
