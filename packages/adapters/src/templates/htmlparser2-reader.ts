import type { HtmlDocument, HtmlReader } from '@mailcast/core';
import { Parser } from 'htmlparser2';

// Elements whose content is not readable text.
const HIDDEN = new Set(['head', 'style', 'script', 'title', 'template']);
// Elements whose end is a paragraph break in the text part.
const BLOCKS = new Set(['p', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'tr', 'table', 'blockquote']);

/** Trailing blanks off each line and at most one empty line in a row, by a scan (no regex backtracking). */
function tidyText(raw: string): string {
  const lines = raw.split('\n').map((line) => {
    let end = line.length;
    while (end > 0 && (line[end - 1] === ' ' || line[end - 1] === '\t')) end -= 1;
    return line.slice(0, end);
  });
  const kept: string[] = [];
  let blanks = 0;
  for (const line of lines) {
    blanks = line === '' ? blanks + 1 : 0;
    if (blanks < 2) kept.push(line);
  }
  return kept.join('\n').trim();
}

/**
 * HTML read with htmlparser2's tokenizer: one pass, linear in the input whatever it holds
 * (unclosed tags and quotes included), which the regular expressions it replaced were not
 * (docs/security.md "HTML").
 */
export class Htmlparser2Reader implements HtmlReader {
  isHtml(source: string): boolean {
    let found = false;
    const parser = new Parser({
      onopentag() {
        found = true;
        parser.pause();
      },
    });
    parser.end(source);
    return found;
  }

  read(html: string): HtmlDocument {
    let out = '';
    let hidden = 0;
    let tag = '';
    // The open <a href>: its URL and the label read so far.
    let anchor: { url: string; label: string } | null = null;
    let href: { url: string; start: number; end: number } | null = null;
    const doc: HtmlDocument = { text: '', links: [], bodyStart: null, bodyEnd: null };

    const closeAnchor = () => {
      if (anchor === null) return;
      const label = anchor.label.trim();
      out += label === '' || label === anchor.url ? anchor.url : `${label} (${anchor.url})`;
      anchor = null;
    };

    const parser = new Parser({
      onopentagname(name) {
        tag = name;
        href = null;
      },
      onattribute(name, value) {
        // The first href of an <a> counts, as a browser reads it.
        if (tag === 'a' && name === 'href' && href === null) href = { url: value.trim(), start: parser.startIndex, end: parser.endIndex };
      },
      onopentag(name) {
        if (HIDDEN.has(name)) hidden += 1;
        if (name === 'body' && doc.bodyStart === null) doc.bodyStart = parser.endIndex + 1;
        if (hidden > 0) return;
        if (name === 'a') {
          closeAnchor();
          if (href !== null) {
            doc.links.push(href);
            anchor = { url: href.url, label: '' };
          }
        } else if (anchor === null) {
          if (name === 'br') out += '\n';
          else if (name === 'li') out += '- ';
        }
      },
      ontext(text) {
        if (hidden > 0) return;
        if (anchor !== null) anchor.label += text;
        else out += text;
      },
      onclosetag(name, implied) {
        if (HIDDEN.has(name)) hidden = Math.max(0, hidden - 1);
        if (name === 'body' && !implied && doc.bodyEnd === null) doc.bodyEnd = parser.startIndex;
        if (hidden > 0) return;
        if (name === 'a') closeAnchor();
        else if (BLOCKS.has(name) && anchor === null) out += '\n\n';
      },
    });
    parser.end(html);
    closeAnchor();
    doc.text = tidyText(out);
    return doc;
  }
}
