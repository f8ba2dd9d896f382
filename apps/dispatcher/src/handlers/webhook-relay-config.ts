import type { OutboxRelayOptions } from './outbox-relay.handler';

function positive(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`Invalid configuration: "${name}" must be a positive integer`);
  return value;
}

/**
 * Overrides of the stalled-delivery sweep, development and test only (beyond the contract), like
 * the MAILCAST_SEND_* knobs: MAILCAST_WEBHOOK_SWEEP_MS (how often) and MAILCAST_WEBHOOK_STALLED_MS
 * (how old a pending delivery without a live job must be). A delivery whose job was lost, e.g.
 * to a database restart, is otherwise picked up again only after the 20-minute default.
 */
export function webhookRelayConfig(env: NodeJS.ProcessEnv = process.env): Partial<Pick<OutboxRelayOptions, 'sweepEveryMs' | 'stalledAfterMs'>> {
  const sweepEveryMs = positive(env, 'MAILCAST_WEBHOOK_SWEEP_MS');
  const stalledAfterMs = positive(env, 'MAILCAST_WEBHOOK_STALLED_MS');
  return {
    ...(sweepEveryMs !== undefined ? { sweepEveryMs } : {}),
    ...(stalledAfterMs !== undefined ? { stalledAfterMs } : {}),
  };
}
