import type { Broadcast, BroadcastRendering, HtmlReader, JobRenderer, RenderingJob, Templates } from '../ports';
import { BroadcastRenderer } from './broadcast-renderer';

/**
 * Broadcasts rendered in the calling process's own event loop, one recipient per turn (the api's
 * preview, unit tests on fakes). The dispatcher renders on a worker thread instead
 * (docs/security.md "HTML").
 */
export class InProcessBroadcastRendering implements BroadcastRendering {
  constructor(
    private readonly templates: Templates,
    private readonly reader: HtmlReader,
  ) {}

  async trackableLinks(broadcast: Broadcast): Promise<Array<{ identifier: string; url: string }>> {
    return BroadcastRenderer.trackableLinks(broadcast, this.reader);
  }

  forJob(job: RenderingJob): JobRenderer {
    const renderer = BroadcastRenderer.forJob(job, this.templates, this.reader);
    return { render: (recipient) => renderer.render(recipient), close: () => undefined };
  }

  async close(): Promise<void> {}
}
