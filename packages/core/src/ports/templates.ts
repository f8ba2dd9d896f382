/** Variables a template may read; plain data only (CONTRACT: Liquid). */
export type TemplateScope = Readonly<Record<string, unknown>>;

/**
 * Liquid templates (subject, body, html_body, confirmation emails), rendered sandboxed: no file
 * system, bounded time and memory.
 */
export interface Templates {
  /** null when the source is valid Liquid, else the parser's message (a 422 at create/update). */
  check(source: string): string | null;
  /** `html` escapes every output value for an HTML context; `text` leaves values as they are. */
  render(source: string, scope: TemplateScope, context: 'html' | 'text'): Promise<string>;
}
export const Templates = Symbol.for('mailcast.Templates');
