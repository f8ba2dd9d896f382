import type { StepSettings } from '@mailcast/domain';
import type { RenderedEmail } from './broadcast-rendering';
import type { SubscriberSnapshot } from './recipients';

/**
 * What one send_email step renders with for a turn of the runtime (docs/sequences.md,
 * "Rendering"): crosses to a render thread once, so each email then sends only its enrolment.
 */
export interface SequenceStepJob {
  channelId: number;
  sequence: { id: number; label: string; trackOpens: boolean };
  stepId: number;
  settings: StepSettings;
  /** The step's stored tracked links (none when the sequence does not track clicks). */
  links: ReadonlyArray<{ url: string; identifier: string }>;
  /** The sequence's unsubscribe secret: each email's token is made from it. */
  secret: Uint8Array;
  /** Base of tracking, preference and unsubscribe links (PUBLIC_URL). */
  publicUrl: string;
}

/** Who one sequence email is rendered for. */
export interface SequenceEmailFor {
  enrolmentId: number;
  subscriber: SubscriberSnapshot;
}

/** One step's renders for a turn. Closed when the turn ends, which frees what is kept for it. */
export interface SequenceStepRenderer {
  /** Rejects with the reason when the email cannot be rendered (bad Liquid, a cap, a time limit). */
  render(email: SequenceEmailFor): Promise<RenderedEmail>;
  close(): void;
}

/**
 * Where sequence emails are rendered: the dispatcher's render threads, as broadcasts are
 * (docs/broadcasts-and-sending.md), so Liquid, the HTML read and the tracking edits never run on
 * its event loop; in process for tests.
 */
export interface SequenceRendering {
  forStep(job: SequenceStepJob): SequenceStepRenderer;
}
export const SequenceRendering = Symbol.for('mailcast.SequenceRendering');
