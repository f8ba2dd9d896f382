import { createHash } from 'node:crypto';

/*
 * What a broadcast email is made of, as pure text transformations: the HTML and text parts,
 * the links that click tracking rewrites, the hidden preheader, the custom headers allowed.
 */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", nbsp: ' ' };

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

export function decodeHtmlEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith('#')) return String.fromCodePoint(parseInt(lower.slice(1), 10));
    return ENTITIES[lower] ?? whole;
  });
}

/** A body with at least one tag is HTML; otherwise it is plain text and gets converted. */
export function looksLikeHtml(s: string): boolean {
  return /<\/?[a-z][a-z0-9-]*(\s[^>]*)?\/?>/i.test(s);
}

const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)\]]/gi;

/** Plain text as simple HTML: escaped, paragraphs and line breaks kept, URLs made links. */
export function textToHtml(text: string): string {
  const paragraphs = text.replace(/\r\n/g, '\n').split(/\n{2,}/).filter((p) => p.trim() !== '');
  return paragraphs
    .map((p) => {
      // Escape the text between URLs and link the URLs, in one pass over the matches.
      let html = '';
      let last = 0;
      for (const m of p.matchAll(URL_IN_TEXT)) {
        const url = escapeHtml(m[0]);
        html += escapeHtml(p.slice(last, m.index)) + `<a href="${url}">${url}</a>`;
        last = m.index + m[0].length;
      }
      html += escapeHtml(p.slice(last));
      return `<p>${html.replace(/\n/g, '<br>\n')}</p>`;
    })
    .join('\n');
}

/** A readable text part from HTML: block ends become line breaks, links keep their URL. */
export function htmlToText(html: string): string {
  return decodeHtmlEntities(
    html
      .replace(/<(head|style|script|title)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
      .replace(/<a\b[^>]*\bhref\s*=\s*(["'])(.*?)\1[^>]*>([\s\S]*?)<\/a\s*>/gi, (_m, _q, href: string, inner: string) => {
        const label = inner.replace(/<[^>]*>/g, '').trim();
        const url = decodeHtmlEntities(href);
        return label === '' || label === url ? url : `${label} (${url})`;
      })
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<\/(p|div|h[1-6]|li|tr|table|blockquote)\s*>/gi, '\n\n')
      .replace(/<li\b[^>]*>/gi, '- ')
      .replace(/<[^>]*>/g, ''),
  )
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const HREF = /(<a\b[^>]*?\bhref\s*=\s*)(["'])(.*?)\2/gi;
const TRACKABLE = /^https?:\/\//i;

/**
 * The distinct http(s) links of a template source that click tracking rewrites. A link with
 * Liquid in it differs per recipient, so it is left as it is (one tracked link per URL).
 */
export function trackableLinks(source: string): string[] {
  const html = looksLikeHtml(source) ? source : textToHtml(source);
  const urls = new Set<string>();
  for (const m of html.matchAll(HREF)) {
    const raw = m[3] ?? '';
    if (raw.includes('{{') || raw.includes('{%')) continue;
    const url = decodeHtmlEntities(raw.trim());
    if (TRACKABLE.test(url)) urls.add(url);
  }
  return [...urls];
}

/** Stable per URL, so every dispatcher derives the same identifier for a broadcast's link. */
export function linkIdentifier(url: string): string {
  return createHash('sha256').update(url).digest('base64url').slice(0, 12);
}

/** Replaces each <a href> for which `rewrite` returns a URL; the others stay as they are. */
export function rewriteLinks(html: string, rewrite: (url: string) => string | null): string {
  return html.replace(HREF, (whole, head: string, quote: string, raw: string) => {
    const replacement = rewrite(decodeHtmlEntities(raw.trim()));
    return replacement === null ? whole : `${head}${quote}${escapeHtml(replacement)}${quote}`;
  });
}

/** The preheader as hidden preview text, first in the body (where mail clients read it). */
export function insertPreheader(html: string, preheader: string): string {
  const hidden =
    '<div style="display:none;max-height:0;overflow:hidden;opacity:0;mso-hide:all">' + escapeHtml(preheader) + '</div>';
  const body = /<body\b[^>]*>/i.exec(html);
  if (body) return html.slice(0, body.index + body[0].length) + hidden + html.slice(body.index + body[0].length);
  return hidden + html;
}

/** Appends before </body> when there is one, else at the end. */
export function appendToBody(html: string, fragment: string): string {
  const close = html.search(/<\/body\s*>/i);
  return close === -1 ? html + fragment : html.slice(0, close) + fragment + html.slice(close);
}

/**
 * Headers a broadcast's email_headers may not set (docs/security.md "Custom headers"): the ones
 * that make the message what it is (addressing, identity, MIME structure, trace and signature
 * fields) and the unsubscribe headers RFC 8058 requires us to own. A name is reserved when it is
 * listed or starts with one of the reserved prefixes (`Resent-*`, `DKIM-*`, `ARC-*`, `Content-*`).
 */
export const RESERVED_HEADERS: readonly string[] = [
  'from',
  'to',
  'cc',
  'bcc',
  'sender',
  'reply-to',
  'subject',
  'date',
  'message-id',
  'in-reply-to',
  'references',
  'return-path',
  'received',
  'mime-version',
  'authentication-results',
  'domainkey-signature',
  'list-unsubscribe',
  'list-unsubscribe-post',
];

export const RESERVED_HEADER_PREFIXES: readonly string[] = ['resent-', 'dkim-', 'arc-', 'content-'];

/** Whether a custom header of this name (any case) would forge or break the message. */
export function isReservedHeader(name: string): boolean {
  const lower = name.trim().toLowerCase();
  return RESERVED_HEADERS.includes(lower) || RESERVED_HEADER_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/i;

/** The custom headers that may be sent: valid names, not reserved, values without line breaks. */
export function allowedCustomHeaders(headers: ReadonlyArray<{ key: string; value: string }>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { key, value } of headers) {
    if (typeof key !== 'string' || typeof value !== 'string') continue;
    const name = key.trim();
    if (!HEADER_NAME.test(name) || isReservedHeader(name)) continue;
    if (/[\r\n]/.test(value)) continue;
    out[name] = value;
  }
  return out;
}
