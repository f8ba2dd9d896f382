import { escapeHtml, isTrackableUrl, linkIdentifier, textToHtml, type HtmlEdit } from '@mailcast/domain';
import type { HtmlDocument, HtmlReader } from '../ports';

/**
 * Open and click tracking in an email's HTML, shared by broadcasts and sequence emails
 * (docs/broadcasts-and-sending.md, docs/sequences.md "Tracking"): the trackable links of a
 * source, each link's href pointed at `/t/c/<token>/<identifier>`, and the open pixel.
 */

/** The distinct static http(s) links of an HTML source (a text body as it will be converted). */
export function trackableLinksOf(source: string, reader: HtmlReader): Array<{ identifier: string; url: string }> {
  const html = reader.isHtml(source) ? source : textToHtml(source);
  const urls = new Set(
    reader
      .read(html)
      .links.map((l) => l.url)
      .filter(isTrackableUrl),
  );
  return [...urls].map((url) => ({ identifier: linkIdentifier(url), url }));
}

/** The edits that send each tracked link of the rendered document through the click redirect. */
export function clickEdits(doc: HtmlDocument, identifierOf: (url: string) => string | undefined, base: string, token: string): HtmlEdit[] {
  const edits: HtmlEdit[] = [];
  for (const l of doc.links) {
    const identifier = identifierOf(l.url);
    if (identifier !== undefined) edits.push({ start: l.start, end: l.end, text: `href="${escapeHtml(`${base}/t/c/${token}/${identifier}`)}"` });
  }
  return edits;
}

/** The open pixel of a token. */
export const openPixelHtml = (base: string, token: string): string =>
  `<img src="${escapeHtml(`${base}/t/o/${token}`)}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px">`;
