import { createHash } from 'node:crypto';

/*
 * What a broadcast email is made of, as pure text transformations: the HTML and text parts,
 * the links that click tracking rewrites, the hidden preheader, the custom headers allowed.
 */

/**
 * Caps on what one recipient's rendering may produce (docs/security.md "Templates"): the subject
 * fits one header line (RFC 5322's 998 characters); the text and HTML parts 512 KiB each (mail
 * clients clip far earlier). A template source longer than the body cap is refused at save.
 */
export const MAX_RENDERED_SUBJECT_LENGTH = 998;
export const MAX_RENDERED_BODY_LENGTH = 524_288;

/** The reason a rendered part is refused, or null when it is within its cap. */
export function renderedPartTooLong(part: 'subject' | 'text' | 'html', value: string): string | null {
  const cap = part === 'subject' ? MAX_RENDERED_SUBJECT_LENGTH : MAX_RENDERED_BODY_LENGTH;
  return value.length > cap ? `the rendered ${part} is longer than ${cap} characters` : null;
}

/**
 * A rendered subject as the one header line it becomes: every run of white space, line breaks
 * included (a template or a subscriber's name may hold them), is one space; no space at the ends.
 */
export function subjectLine(rendered: string): string {
  return rendered.replace(/\s+/g, ' ').trim();
}

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)\]]/gi;

/** Plain text as simple HTML: escaped, paragraphs and line breaks kept, URLs made links. */
export function textToHtml(text: string): string {
  const paragraphs = text
    .replace(/\r\n/g, '\n')
    .split(/\n{2,}/)
    .filter((p) => p.trim() !== '');
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

const TRACKABLE = /^https?:\/\//i;

/**
 * Whether click tracking rewrites a link (its decoded href): http(s) only, and a link with Liquid
 * in it differs per recipient, so it is left as it is (one tracked link per URL).
 */
export function isTrackableUrl(url: string): boolean {
  return TRACKABLE.test(url) && !url.includes('{{') && !url.includes('{%');
}

/** Stable per URL, so every dispatcher derives the same identifier for a broadcast's link. */
export function linkIdentifier(url: string): string {
  return createHash('sha256').update(url).digest('base64url').slice(0, 12);
}

/** A replacement of the source between two offsets (as an HTML reader reports them). */
export type HtmlEdit = { start: number; end: number; text: string };

/** Applies edits that do not overlap, in one pass; positions refer to the unedited source. */
export function editHtml(html: string, edits: readonly HtmlEdit[]): string {
  const sorted = [...edits].sort((x, y) => x.start - y.start || x.end - y.end);
  let out = '';
  let at = 0;
  for (const edit of sorted) {
    if (edit.start < at) continue;
    out += html.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + html.slice(at);
}

/** The preheader as hidden preview text, put first in the body (where mail clients read it). */
export function preheaderHtml(preheader: string): string {
  return '<div style="display:none;max-height:0;overflow:hidden;opacity:0;mso-hide:all">' + escapeHtml(preheader) + '</div>';
}

/** The visible unsubscribe link of an email's HTML part, put at the end of its body. */
export function unsubscribeFooterHtml(url: string): string {
  return `<p style="font-size:12px;color:#666"><a href="${escapeHtml(url)}">Unsubscribe</a></p>`;
}

/** The visible unsubscribe link of an email's text part, appended to it. */
export function unsubscribeFooterText(url: string): string {
  return `\n\nUnsubscribe: ${url}`;
}

/** RFC 8058: a URI the receiver may POST to without a confirmation, and the one-click marker. */
export function listUnsubscribeHeaders(url: string): Record<string, string> {
  return { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}

/**
 * Headers a broadcast's email_headers may not set (docs/security.md "Custom headers"): the ones
 * that make the message what it is (addressing, identity, MIME structure, trace and signature
 * fields), the unsubscribe headers RFC 8058 requires us to own, and the Postmark metadata a
 * bounce receiver matches by (docs/bounces.md). A name is reserved when it is listed or starts
 * with one of the reserved prefixes (`Resent-*`, `DKIM-*`, `ARC-*`, `Content-*`,
 * `X-PM-Metadata-mailcast-*`).
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

export const RESERVED_HEADER_PREFIXES: readonly string[] = ['resent-', 'dkim-', 'arc-', 'content-', 'x-pm-metadata-mailcast-'];

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
