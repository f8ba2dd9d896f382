import type { TemplatePart, Templates, TemplateScope } from '@mailcast/core';
import path from 'node:path';
import { LiquidTemplates } from './liquid-templates';
import { RenderThreads, type RenderThreadsOptions } from './render-threads';

/** What a templates thread is asked: the parts of one email, with their scope. */
export interface TemplatesRequest {
  parts: readonly TemplatePart[];
  scope: TemplateScope;
}

export interface ThreadedTemplatesOptions extends Omit<RenderThreadsOptions, 'script' | 'threads' | 'heapMb'> {
  /** Default 1: a render is short, and channels take turns on it. */
  threads?: number;
  heapMb?: number;
  /** The thread's script; a test gives its own. Default: the built templates-thread.js. */
  script?: string;
}

/**
 * One email's Liquid may take this long on a templates thread (MAILCAST_TEMPLATE_TIME_LIMIT_MS).
 * What an honest email takes is a few milliseconds, and liquidjs stops a part past 200 ms between
 * its tags; a healthy channel waits at most about one limit behind another's hostile render, plus
 * the fresh thread's start, well under a second (docs/templates.md "Rendering").
 */
export const DEFAULT_TEMPLATE_TIME_LIMIT_MS = 300;
/** A heap to hold liquidjs's 50 M allocations' worth of short-lived strings and arrays. */
export const DEFAULT_TEMPLATE_HEAP_MB = 128;

const DEFAULT_SCRIPT = __filename.endsWith('.ts')
  ? path.resolve(__dirname, '../../dist/templates/templates-thread.js')
  : path.join(__dirname, 'templates-thread.js');

/**
 * Liquid of channel content (previews, transactionals, confirmation emails) rendered on a worker
 * thread that is stopped and replaced past the time limit, so no channel's template holds the
 * event loop of the api or the dispatcher, and channels take turns on the thread
 * (docs/templates.md "Rendering"). `check` only parses, here: bounded by liquidjs's parse limit.
 */
export class ThreadedTemplates implements Templates {
  private readonly parser = new LiquidTemplates();
  private readonly threads: RenderThreads<TemplatesRequest>;

  constructor(options: ThreadedTemplatesOptions) {
    this.threads = new RenderThreads<TemplatesRequest>({
      ...options,
      threads: options.threads ?? 1,
      heapMb: options.heapMb ?? DEFAULT_TEMPLATE_HEAP_MB,
      script: options.script ?? DEFAULT_SCRIPT,
      // A hostile render's replacement is ready when it is stopped: the wait behind it is the limit alone.
      spare: options.spare ?? true,
    });
  }

  check(source: string): string | null {
    return this.parser.check(source);
  }

  render<const Parts extends readonly TemplatePart[]>(
    channelId: number,
    parts: Parts,
    scope: TemplateScope,
  ): Promise<{ -readonly [K in keyof Parts]: string }> {
    return this.threads.request(channelId, { parts, scope }) as Promise<{ -readonly [K in keyof Parts]: string }>;
  }

  close(): Promise<void> {
    return this.threads.close();
  }
}
