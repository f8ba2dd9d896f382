import type { TemplatePart, TemplateScope, Templates } from '@mailcast/core';
import { MAX_RENDERED_BODY_LENGTH } from '@mailcast/domain';
import { CaptureTag, Liquid, type Context, type Template } from 'liquidjs';

export const RENDER_LIMIT_MS = 200;

/** Parsed templates kept per source: a broadcast renders one source for every recipient. */
const CACHE_SIZE = 256;

/**
 * `{% capture %}` with a size cap: liquidjs's memory limit does not count what a capture
 * collects, so a template doubling a captured string (`{{ x }}{{ x }}` in a loop of captures)
 * grew to gigabytes. A capture longer than the rendered-body cap fails that render
 * (docs/security.md "Templates").
 */
class CappedCaptureTag extends CaptureTag {
  override *render(ctx: Context): Generator<unknown, void, string> {
    yield* super.render(ctx);
    const captured: unknown = (ctx.bottom() as Record<string, unknown>)[this.variable];
    if (typeof captured === 'string' && captured.length > MAX_RENDERED_BODY_LENGTH) {
      throw new Error(`capture "${this.variable}" is longer than ${MAX_RENDERED_BODY_LENGTH} characters`);
    }
  }
}

/**
 * Liquid, sandboxed (docs/broadcasts-and-sending.md): an empty in-memory file system (so `include` and
 * `render` reach no file), only own properties of the scope, and liquidjs's DoS limits on
 * template size, render time and allocations.
 */
function engine(outputEscape?: 'escape'): Liquid {
  const liquid = new Liquid({
    templates: {},
    ownPropertyOnly: true,
    strictFilters: true,
    parseLimit: 1_000_000,
    // Milliseconds per part, checked between tags only: inside one filter chain it is the
    // thread's time limit that stops a render (docs/templates.md "Rendering").
    renderLimit: RENDER_LIMIT_MS,
    memoryLimit: 50_000_000,
    ...(outputEscape ? { outputEscape } : {}),
  });
  liquid.registerTag('capture', CappedCaptureTag);
  return liquid;
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
   * In the calling thread: the rendering threads' own engine, and unit tests. Anywhere else
   * channel content renders on ThreadedTemplates (docs/templates.md "Rendering").
   */
  async render<const Parts extends readonly TemplatePart[]>(
    _channelId: number,
    parts: Parts,
    scope: TemplateScope,
  ): Promise<{ -readonly [K in keyof Parts]: string }> {
    return this.renderParts(parts, scope) as { -readonly [K in keyof Parts]: string };
  }

  /**
   * Rendered synchronously, in order: nothing in a sandboxed template waits (no file system, no
   * async filters), and the async renderer's promise per tag was a broadcast's main rendering cost.
   */
  renderParts(parts: readonly TemplatePart[], scope: TemplateScope): string[] {
    return parts.map(({ source, context }) => this.engines[context].renderSync(this.parse(source, context), scope) as string);
  }

  async close(): Promise<void> {}

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
