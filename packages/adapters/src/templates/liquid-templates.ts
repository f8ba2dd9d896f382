import type { TemplateScope, Templates } from '@mailcast/core';
import { Liquid, type Template } from 'liquidjs';

/** Parsed templates kept per source: a broadcast renders one source for every recipient. */
const CACHE_SIZE = 256;

/**
 * Liquid, sandboxed (docs/broadcasts-and-sending.md): an empty in-memory file system (so `include` and
 * `render` reach no file), only own properties of the scope, and liquidjs's DoS limits on
 * template size, render time and allocations.
 */
function engine(outputEscape?: 'escape'): Liquid {
  return new Liquid({
    templates: {},
    ownPropertyOnly: true,
    strictFilters: true,
    parseLimit: 1_000_000,
    renderLimit: 1_000,
    memoryLimit: 50_000_000,
    ...(outputEscape ? { outputEscape } : {}),
  });
}

export class LiquidTemplates implements Templates {
  private readonly engines = { html: engine('escape'), text: engine() };
  private readonly parsed = { html: new Map<string, Template[]>(), text: new Map<string, Template[]>() };

  check(source: string): string | null {
    try {
      this.engines.text.parse(source);
      return null;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  /**
   * Rendered synchronously: nothing in a sandboxed template waits (no file system, no async
   * filters), and the async renderer's promise per tag was a broadcast's main rendering cost.
   */
  async render(source: string, scope: TemplateScope, context: 'html' | 'text'): Promise<string> {
    return this.engines[context].renderSync(this.parse(source, context), scope) as string;
  }

  private parse(source: string, context: 'html' | 'text'): Template[] {
    const cache = this.parsed[context];
    let templates = cache.get(source);
    if (templates === undefined) {
      templates = this.engines[context].parse(source);
      if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(source, templates);
    }
    return templates;
  }
}
