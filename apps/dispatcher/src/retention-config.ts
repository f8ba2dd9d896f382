import type { RetentionPolicy } from '@mailcast/core';
import { IDEMPOTENCY_TTL_MS } from '@mailcast/domain';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Retention as the dispatcher runs it: the policy, and how often a run starts. */
export interface RetentionSettings {
  policy: RetentionPolicy;
  intervalMs: number;
}

/** The defaults of docs/retention.md, in days; 0 keeps a table's rows for ever. */
export const RETENTION_DEFAULT_DAYS = { webhookDeliveries: 30, events: 30, emailEvents: 180 } as const;

function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`Invalid configuration: "${name}" must be an integer of at least ${min}`);
  }
  return value;
}

/**
 * MAILCAST_RETENTION_WEBHOOK_DELIVERIES_DAYS, MAILCAST_RETENTION_EVENTS_DAYS and
 * MAILCAST_RETENTION_EMAIL_EVENTS_DAYS (0: keep for ever), MAILCAST_RETENTION_INTERVAL_MS (how
 * often a run starts, default one hour). Idempotency keys go once they expire (24 hours), which
 * is what they promise; that is not a setting.
 */
export function retentionConfig(env: NodeJS.ProcessEnv = process.env): RetentionSettings {
  const days = (name: string, fallback: number) => {
    const value = wholeNumber(env, name, fallback, 0);
    return value === 0 ? null : value * DAY_MS;
  };
  return {
    policy: {
      keepMs: {
        webhook_deliveries: days('MAILCAST_RETENTION_WEBHOOK_DELIVERIES_DAYS', RETENTION_DEFAULT_DAYS.webhookDeliveries),
        events: days('MAILCAST_RETENTION_EVENTS_DAYS', RETENTION_DEFAULT_DAYS.events),
        email_events: days('MAILCAST_RETENTION_EMAIL_EVENTS_DAYS', RETENTION_DEFAULT_DAYS.emailEvents),
        idempotency_keys: IDEMPOTENCY_TTL_MS,
      },
      batchSize: 5_000,
      maxBatchesPerRun: 100,
    },
    intervalMs: wholeNumber(env, 'MAILCAST_RETENTION_INTERVAL_MS', 60 * 60 * 1000, 1),
  };
}
