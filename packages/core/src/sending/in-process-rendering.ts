import type {
  Broadcast,
  BroadcastRendering,
  HtmlReader,
  JobRenderer,
  RenderingJob,
  SequenceRendering,
  SequenceStepJob,
  SequenceStepRenderer,
  Templates,
} from '../ports';
import { SequenceEmailRenderer } from '../sequences/sequence-email';
import { BroadcastRenderer } from './broadcast-renderer';

/**
 * Broadcasts (and sequence emails) rendered through the given Templates, one recipient per turn:
 * tests and the bench, with LiquidTemplates in their own event loop. The dispatcher renders on
 * worker threads instead (docs/broadcasts-and-sending.md "Rendering threads, channels in turn").
 */
export class InProcessBroadcastRendering implements BroadcastRendering, SequenceRendering {
  constructor(
    private readonly templates: Templates,
    private readonly reader: HtmlReader,
    /** The process's render turns (SendEngine.turns); none: renders run back to back. */
    private readonly turns?: { take(): Promise<void> },
  ) {}

  async trackableLinks(broadcast: Broadcast): Promise<Array<{ identifier: string; url: string }>> {
    return BroadcastRenderer.trackableLinks(broadcast, this.reader);
  }

  forJob(job: RenderingJob): JobRenderer {
    const turns = this.turns;
    const renderer = BroadcastRenderer.forJob(job, this.templates, this.reader, turns && (() => turns.take()));
    return { render: (recipient) => renderer.render(recipient), close: () => undefined };
  }

  forStep(job: SequenceStepJob): SequenceStepRenderer {
    const turns = this.turns;
    const renderer = new SequenceEmailRenderer(job, this.templates, this.reader);
    return {
      render: async (email) => {
        await turns?.take();
        return renderer.render(email);
      },
      close: () => undefined,
    };
  }

  async close(): Promise<void> {}
}
