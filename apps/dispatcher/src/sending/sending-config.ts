import { DEFAULT_CONNECTIONS_PER_SERVER } from '@mailcast/adapters';
import os from 'node:os';
import { defaultSendingOptions, type SendingOptions } from '@mailcast/core';
import { parseRetrySchedule } from '@mailcast/domain';
import { positiveKnob } from '../dev-env';

/**
 * The dispatcher's sending options: PUBLIC_URL from the shared configuration, the rest at their
 * defaults. MAILCAST_SEND_LEASE_MS is the send lease (default 60 s): a database outage shorter
 * than it costs no duplicate, and a dead dispatcher's claims return after it
 * (docs/sending-reliability.md). Development and test only (beyond the contract):
 * MAILCAST_SEND_SWEEP_MS, MAILCAST_SEND_CONCURRENCY and MAILCAST_SEND_RETRY_SCHEDULE (e.g.
 * `200ms,400ms`) shorten what a test would otherwise wait minutes for.
 */
export function sendingConfig(publicUrl: string, env: NodeJS.ProcessEnv = process.env): SendingOptions {
  const options = defaultSendingOptions(publicUrl, smtpConnections(env));
  const leaseMs = positiveKnob(env, 'MAILCAST_SEND_LEASE_MS');
  const sweepIntervalMs = positiveKnob(env, 'MAILCAST_SEND_SWEEP_MS');
  const concurrency = positiveKnob(env, 'MAILCAST_SEND_CONCURRENCY');
  const schedule = env.MAILCAST_SEND_RETRY_SCHEDULE;
  return {
    ...options,
    ...(leaseMs !== undefined ? { leaseMs } : {}),
    ...(sweepIntervalMs !== undefined ? { sweepIntervalMs } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(schedule ? { retryScheduleMs: parseRetrySchedule(schedule) } : {}),
  };
}

/**
 * Pooled SMTP connections per email server (MAILCAST_SMTP_CONNECTIONS, beyond the contract's
 * variables): for a server that allows fewer than the default, or a distant one that is faster
 * with more.
 */
export function smtpConnections(env: NodeJS.ProcessEnv = process.env): number {
  return positiveKnob(env, 'MAILCAST_SMTP_CONNECTIONS') ?? DEFAULT_CONNECTIONS_PER_SERVER;
}

/**
 * SMTP threads (MAILCAST_SMTP_THREADS, beyond the contract's variables): composing and writing
 * messages runs on this many worker threads, so one dispatcher uses more than one core; 0 keeps
 * it on the main thread. Default: one per core but the main thread's, at most 4 (past that the
 * main thread's bookkeeping is the limit: run another dispatcher).
 */
export function smtpThreads(env: NodeJS.ProcessEnv = process.env, cores: number = os.availableParallelism()): number {
  const raw = env.MAILCAST_SMTP_THREADS;
  if (raw === undefined || raw === '') return Math.min(4, Math.max(0, cores - 1));
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 64) {
    throw new Error('Invalid configuration: "MAILCAST_SMTP_THREADS" must be an integer from 0 to 64');
  }
  return value;
}
