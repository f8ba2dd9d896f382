import { defaultSendingOptions, type SendingOptions } from '@mailcast/core';
import { parseRetrySchedule } from '@mailcast/domain';

function positive(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`Invalid configuration: "${name}" must be a positive integer`);
  return value;
}

/**
 * The dispatcher's sending options: PUBLIC_URL from the shared configuration, the rest at their
 * defaults. Development and test only (beyond the contract): MAILCAST_SEND_LEASE_MS,
 * MAILCAST_SEND_SWEEP_MS, MAILCAST_SEND_CONCURRENCY and MAILCAST_SEND_RETRY_SCHEDULE (e.g.
 * `200ms,400ms`) shorten what a test would otherwise wait minutes for.
 */
export function sendingConfig(publicUrl: string, env: NodeJS.ProcessEnv = process.env): SendingOptions {
  const options = defaultSendingOptions(publicUrl);
  const leaseMs = positive(env, 'MAILCAST_SEND_LEASE_MS');
  const sweepIntervalMs = positive(env, 'MAILCAST_SEND_SWEEP_MS');
  const concurrency = positive(env, 'MAILCAST_SEND_CONCURRENCY');
  const schedule = env.MAILCAST_SEND_RETRY_SCHEDULE;
  return {
    ...options,
    ...(leaseMs !== undefined ? { leaseMs } : {}),
    ...(sweepIntervalMs !== undefined ? { sweepIntervalMs } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(schedule ? { retryScheduleMs: parseRetrySchedule(schedule) } : {}),
  };
}
