import { subjectLine } from '@mailcast/domain';
import type { Broadcast, HtmlReader, SubscriberSnapshot, Templates } from '../ports';
import { BroadcastRenderer } from '../sending/broadcast-renderer';

/** A broadcast as a browser shows it: its rendered subject, preheader and HTML part. */
export interface BrowserCopy {
  subject: string;
  preheader: string | null;
  html: string;
}

/**
 * The subscriber of the public archive's copy (docs/archive.md, "What the archive copy shows"):
 * nobody, so every `subscriber.*` variable renders empty and no one's data can reach the page.
 */
export const NOBODY: SubscriberSnapshot = {
  id: 0,
  email: '',
  firstName: null,
  lastName: null,
  tags: [],
  customData: {},
  isActive: true,
  source: '',
  subscribedAt: new Date(0),
  unsubscribedAt: null,
};

// Links that would record or change anything point nowhere: the token is never a valid one.
const NO_TOKEN = 'archive';

/**
 * Renders `broadcast` for `subscriber` through the sending renderer with everything that tracks
 * or acts switched off: no open pixel, no click rewriting, no unsubscribe link (docs/archive.md).
 * `webViewUrl` is what `{{ web_view_url }}` shows in this copy.
 */
export async function renderBrowserCopy(
  deps: { templates: Templates; reader: HtmlReader },
  broadcast: Broadcast,
  subscriber: SubscriberSnapshot,
  webViewUrl: string,
): Promise<BrowserCopy> {
  const untracked: Broadcast = { ...broadcast, trackOpens: false, trackClicks: false, includeUnsubscribeLink: false };
  const renderer = new BroadcastRenderer(
    untracked,
    deps.templates,
    deps.reader,
    [],
    '',
    () => NO_TOKEN,
    undefined,
    () => webViewUrl,
  );
  const email = await renderer.render({ recipientId: 0, subscriber });
  return { subject: email.subject, preheader: broadcast.preheader, html: email.html };
}

/**
 * The subject alone, as the archive copy shows it (the list page renders no bodies). A subject
 * that no longer renders shows its source: it holds the author's text, never a subscriber's.
 */
export async function renderArchiveSubject(templates: Templates, broadcast: Broadcast, webViewUrl: string): Promise<string> {
  const scope = {
    subscriber: { email: '', first_name: null, last_name: null, tags: [], custom_data: {} },
    broadcast: { name: broadcast.name, subject: broadcast.subject },
    web_view_url: webViewUrl,
  };
  try {
    const [subject] = await templates.render(broadcast.channelId, [{ source: broadcast.subject, context: 'text' }] as const, scope);
    return subjectLine(subject);
  } catch {
    return subjectLine(broadcast.subject);
  }
}
