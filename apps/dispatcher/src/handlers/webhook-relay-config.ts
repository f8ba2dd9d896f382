import type { OutboxRelayOptions } from './outbox-relay.handler';
import { positiveKnob } from '../dev-env';

/**
 * Overrides of the stalled-delivery sweep, development and test only (beyond the contract), like
 * the MAILCAST_SEND_* knobs: MAILCAST_WEBHOOK_SWEEP_MS (how often) and MAILCAST_WEBHOOK_STALLED_MS
 * (how old a pending delivery must be). A delivery lost with its dispatcher (held in memory or
 * as a job) or to a database restart is otherwise picked up again only after the 20-minute default.
 */
export function webhookRelayConfig(env: NodeJS.ProcessEnv = process.env): Partial<Pick<OutboxRelayOptions, 'sweepEveryMs' | 'stalledAfterMs'>> {
  const sweepEveryMs = positiveKnob(env, 'MAILCAST_WEBHOOK_SWEEP_MS');
  const stalledAfterMs = positiveKnob(env, 'MAILCAST_WEBHOOK_STALLED_MS');
  return {
    ...(sweepEveryMs !== undefined ? { sweepEveryMs } : {}),
    ...(stalledAfterMs !== undefined ? { stalledAfterMs } : {}),
  };
}
