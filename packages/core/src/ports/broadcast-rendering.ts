import type { Broadcast } from './entities/broadcast';
import type { BroadcastLink, SubscriberSnapshot } from './recipients';

/** One recipient's message as rendered. */
export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

/** Who a message is rendered for: the recipient row (its tracking token) and its subscriber. */
export interface RecipientLinks {
  recipientId: number;
  subscriber: SubscriberSnapshot;
  /** A subject test's subject index for this recipient (docs/subject-tests.md); absent: the broadcast's subject. */
  variant?: number | null;
}

/** What a sending job renders with; its database part (links saved, secret kept) done already. */
export interface RenderingJob {
  broadcast: Broadcast;
  /** The broadcast's saved trackable links (none when clicks are not tracked). */
  links: readonly BroadcastLink[];
  /** The broadcast's tracking secret: recipients' tokens are made from it. */
  trackingSecret: Uint8Array;
  /** Base of tracking and unsubscribe links (PUBLIC_URL). */
  publicUrl: string;
}

/** One job's renders. Closed when the job ends, which frees what the rendering keeps for it. */
export interface JobRenderer {
  /** Rejects with the reason when this recipient cannot be rendered (a cap, a time limit). */
  render(recipient: RecipientLinks): Promise<RenderedEmail>;
  close(): void;
}

/**
 * Where broadcasts are rendered for sending: in the calling process's event loop, or away from
 * it (the dispatcher renders on a bounded worker thread, docs/security.md "HTML"), so user
 * HTML and Liquid never hold up what else the process does.
 */
export interface BroadcastRendering {
  /** The distinct static http(s) links of the broadcast's HTML, which a job saves for tracking. */
  trackableLinks(broadcast: Broadcast): Promise<Array<{ identifier: string; url: string }>>;
  forJob(job: RenderingJob): JobRenderer;
  close(): Promise<void>;
}
export const BroadcastRendering = Symbol.for('mailcast.BroadcastRendering');
