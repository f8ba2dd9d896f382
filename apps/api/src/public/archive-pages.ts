import type { ArchivedCopy, BrowserCopy, PublicArchive } from '@mailcast/core';
import { escapeHtml } from '@mailcast/domain';
import type { Response } from 'express';

/*
 * The archive's pages and feed (docs/archive.md). Every stored text (channel name, subjects,
 * dates) is escaped here; the one thing shown as HTML is the email's own HTML part, the campaign
 * author's content, and it is shown only inside a sandboxed iframe's `srcdoc` (escaped as an
 * attribute value): no scripts (the sandbox and the page's CSP both forbid them), no forms, no
 * access to this origin, and links open in a new tab outside the sandbox.
 */

// The page itself runs nothing and loads nothing but the email's images and fonts, which the
// srcdoc frame inherits this policy for; it may never be framed.
const PAGE_CSP =
  "default-src 'none'; img-src https: http: data:; font-src https: data:; style-src 'unsafe-inline'; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const FRAME_SANDBOX = 'allow-popups allow-popups-to-escape-sandbox';
const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#222}' +
  'header{color:#555;font-size:.9rem}h1{font-size:1.4rem}ul{padding:0;list-style:none}li{margin:.6rem 0}time{color:#666;font-size:.85rem;margin-left:.5rem}' +
  'iframe{width:100%;height:80vh;border:1px solid #ddd;border-radius:6px;background:#fff}.preheader{color:#666}';

type Headers = Record<string, string>;

const PUBLIC_PAGE: Headers = { 'Cache-Control': 'public, max-age=60' };
// A recipient's own copy: never cached by a proxy, never indexed, the token never sent on.
const PRIVATE_PAGE: Headers = { 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex, nofollow' };

function send(res: Response, status: number, headers: Headers, title: string, head: string, body: string): void {
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': PAGE_CSP,
      ...headers,
    })
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
        `<title>${escapeHtml(title)}</title>${head}<style>${STYLE}</style></head><body>${body}</body></html>`,
    );
}

const day = (d: Date) => d.toISOString().slice(0, 10);
const time = (d: Date) => `<time datetime="${escapeHtml(d.toISOString())}">${escapeHtml(day(d))}</time>`;

function frame(copy: BrowserCopy): string {
  const preheader = copy.preheader ? `<p class="preheader">${escapeHtml(copy.preheader)}</p>` : '';
  return (
    `<h1>${escapeHtml(copy.subject)}</h1>${preheader}` +
    `<iframe title="${escapeHtml(copy.subject)}" sandbox="${FRAME_SANDBOX}" referrerpolicy="no-referrer" srcdoc="${escapeHtml(copy.html)}"></iframe>`
  );
}

export function sendArchiveList(res: Response, archive: PublicArchive): void {
  const name = archive.channel.name;
  const items =
    archive.items.length === 0
      ? '<p>Nothing has been published here yet.</p>'
      : `<ul>${archive.items.map((i) => `<li><a href="${escapeHtml(i.url)}">${escapeHtml(i.subject)}</a>${time(i.sentAt)}</li>`).join('')}</ul>`;
  send(
    res,
    200,
    PUBLIC_PAGE,
    name,
    `<link rel="alternate" type="application/atom+xml" title="${escapeHtml(name)}" href="${escapeHtml(archive.feedUrl)}">`,
    `<h1>${escapeHtml(name)}</h1><p><a href="${escapeHtml(archive.feedUrl)}">Atom feed</a></p>${items}`,
  );
}

export function sendArchivedCopy(res: Response, copy: ArchivedCopy): void {
  send(
    res,
    200,
    PUBLIC_PAGE,
    copy.subject,
    '',
    `<header><a href="${escapeHtml(copy.archiveUrl)}">${escapeHtml(copy.channel.name)}</a>${time(copy.sentAt)}</header>${frame(copy)}`,
  );
}

export function sendWebView(res: Response, copy: BrowserCopy): void {
  send(res, 200, PRIVATE_PAGE, copy.subject, '', frame(copy));
}

export function sendNotFound(res: Response, isPrivate = false): void {
  send(
    res,
    404,
    isPrivate ? PRIVATE_PAGE : { 'Cache-Control': 'no-store' },
    'Not found',
    '',
    '<h1>Not found</h1><p>There is nothing at this address. The link may be incomplete.</p>',
  );
}

// XML 1.0 allows neither these characters nor lone surrogates, escaped or not: they are dropped.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function escapeXml(s: string): string {
  return s.replace(NOT_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** RFC 4287: the channel's newest archived broadcasts, each with its HTML as escaped `html` content. */
export function atomFeed(archive: PublicArchive, entries: readonly ArchivedCopy[]): string {
  const x = escapeXml;
  const updated = (entries[0]?.sentAt ?? archive.channel.createdAt).toISOString();
  const author = archive.channel.fromName ?? archive.channel.name;
  const items = entries.map(
    (e) =>
      `<entry><id>${x(e.url)}</id><title type="text">${x(e.subject)}</title><published>${e.sentAt.toISOString()}</published>` +
      `<updated>${e.sentAt.toISOString()}</updated><link rel="alternate" type="text/html" href="${x(e.url)}"/>` +
      (e.preheader ? `<summary type="text">${x(e.preheader)}</summary>` : '') +
      `<content type="html">${x(e.html)}</content></entry>`,
  );
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">` +
    `<id>${x(archive.url)}</id><title type="text">${x(archive.channel.name)}</title><updated>${updated}</updated>` +
    `<link rel="self" type="application/atom+xml" href="${x(archive.feedUrl)}"/><link rel="alternate" type="text/html" href="${x(archive.url)}"/>` +
    `<author><name>${x(author)}</name></author>${items.join('')}</feed>\n`
  );
}
