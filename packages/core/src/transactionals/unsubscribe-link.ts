import { escapeHtml, listUnsubscribeHeaders, transactionalUnsubscribeToken, unsubscribeFooterHtml, unsubscribeFooterText } from '@mailcast/domain';
import type { HtmlReader, Transactional } from '../ports';
import { preferencesUrl } from '../topics/preferences';

/**
 * A transactional's unsubscribe link (docs/transactionals.md): only with
 * `include_unsubscribe_link`, on the public unsubscribe page broadcasts use (`/u/<token>`), the
 * token signed under the transactional's own secret, so a retry renders the same URL.
 */
export function transactionalUnsubscribeUrl(publicUrl: string, t: Pick<Transactional, 'id' | 'includeUnsubscribeLink' | 'unsubscribeSecret'>): string | null {
  if (!t.includeUnsubscribeLink || t.unsubscribeSecret === null) return null;
  return `${publicUrl.replace(/\/+$/, '')}/u/${transactionalUnsubscribeToken(t.unsubscribeSecret, t.id)}`;
}

/** The preference page of the same token (docs/topics.md, "The preference page"); null without an unsubscribe link. */
export function transactionalPreferencesUrl(publicUrl: string, t: Pick<Transactional, 'id' | 'includeUnsubscribeLink' | 'unsubscribeSecret'>): string | null {
  if (!t.includeUnsubscribeLink || t.unsubscribeSecret === null) return null;
  return preferencesUrl(publicUrl, transactionalUnsubscribeToken(t.unsubscribeSecret, t.id));
}

/**
 * Adds the visible link to each part that does not already show it (the content placed
 * `{{ unsubscribe_url }}` itself), at the end of the HTML body, and the RFC 8058 headers.
 */
export function withUnsubscribeLink(
  reader: HtmlReader,
  url: string,
  parts: { text: string; html: string | null },
): { text: string; html: string | null; headers: Record<string, string> } {
  const text = parts.text.includes(url) ? parts.text : parts.text + unsubscribeFooterText(url);
  let html = parts.html;
  if (html !== null && !html.includes(url) && !html.includes(escapeHtml(url))) {
    const end = reader.read(html).bodyEnd ?? html.length;
    html = html.slice(0, end) + unsubscribeFooterHtml(url) + html.slice(end);
  }
  return { text, html, headers: listUnsubscribeHeaders(url) };
}
