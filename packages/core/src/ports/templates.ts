/** Variables a template may read; plain data only (docs/broadcasts-and-sending.md). */
export type TemplateScope = Readonly<Record<string, unknown>>;

/** One Liquid source of an email. `html` escapes every output value for an HTML context; `text` leaves values as they are. */
export interface TemplatePart {
  source: string;
  context: 'html' | 'text';
}

/**
 * Liquid templates (subject, body, html_body, confirmation emails), rendered sandboxed: no file
 * system, bounded time and memory.
 */
export interface Templates {
  /** null when the source is valid Liquid, else the parser's message (a 422 at create/update). */
  check(source: string): string | null;
  /**
   * The parts of one email rendered with one scope, for the channel whose content they are: the
   * parts together are bounded by one time limit, and channels take turns (docs/templates.md
   * "Rendering"). Rejects with the reason when a part cannot be rendered.
   */
  render<const Parts extends readonly TemplatePart[]>(channelId: number, parts: Parts, scope: TemplateScope): Promise<{ -readonly [K in keyof Parts]: string }>;
  /** Stops what renders (its threads); renders after it are refused. */
  close(): Promise<void>;
}
export const Templates = Symbol.for('mailcast.Templates');

/** What sending needs to know of an HTML body, read in one linear pass (docs/security.md "HTML"). */
export interface HtmlDocument {
  /** The readable text part: block ends as line breaks, links with their URL, entities decoded. */
  text: string;
  /** Each <a href>: its decoded URL and where its href attribute sits in the source. */
  links: Array<{ url: string; start: number; end: number }>;
  /** Just after the <body ...> start tag, when there is one. */
  bodyStart: number | null;
  /** Where the first </body> starts, when there is one. */
  bodyEnd: number | null;
}

/** An HTML tokenizer with linear-time behaviour: user HTML never meets a regular expression. */
export interface HtmlReader {
  /** Whether the source has at least one complete tag (else it is plain text). */
  isHtml(source: string): boolean;
  read(html: string): HtmlDocument;
}
export const HtmlReader = Symbol.for('mailcast.HtmlReader');
