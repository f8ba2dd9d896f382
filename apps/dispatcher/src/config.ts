import {
  DEFAULT_CONNECTIONS_PER_SERVER,
  DEFAULT_RENDER_HEAP_MB,
  DEFAULT_RENDER_THREADS,
  DEFAULT_RENDER_TIME_LIMIT_MS,
  type ThreadedRenderingOptions,
} from '@mailcast/adapters';
import { defaultSendingOptions, type RetentionPolicy, type SendingOptions } from '@mailcast/core';
import { IDEMPOTENCY_TTL_MS, parseRetrySchedule } from '@mailcast/domain';
import os from 'node:os';
import type { OutboxRelayOptions } from './workers/outbox-relay';

/**
 * The dispatcher's own settings, every MAILCAST_* variable it reads, read and validated here in
 * one place at start-up (the shared variables, DATABASE_URL, PUBLIC_URL and the rest, are the
 * adapters' loadConfig). A bad value stops the process with a message naming the variable.
 */
export interface DispatcherConfig {
  /** How a broadcast is worked; the process adds its own name and stop signal at start. */
  sending: SendingOptions;
  smtp: { threads: number; connectionsPerServer: number };
  /** The broadcast rendering threads and their bounds. */
  render: Omit<ThreadedRenderingOptions, 'script'>;
  /** Overrides of the stalled-delivery sweep; the relay's defaults for what is absent. */
  webhookRelay: Partial<Pick<OutboxRelayOptions, 'sweepEveryMs' | 'stalledAfterMs'>>;
  /** Pruning of old rows (docs/retention.md). */
  retention: RetentionSettings;
  /** The sequence runtime (docs/sequences.md, "Runtime"). */
  sequences: SequenceRuntimeSettings;
}

export function loadDispatcherConfig(publicUrl: string, env: NodeJS.ProcessEnv = process.env, cores: number = os.availableParallelism()): DispatcherConfig {
  return {
    sending: sendingConfig(publicUrl, env),
    smtp: { threads: smtpThreads(env, cores), connectionsPerServer: smtpConnections(env) },
    render: renderConfig(env),
    webhookRelay: webhookRelayConfig(env),
    retention: retentionConfig(env),
    sequences: sequencesConfig(env),
  };
}

/** How often the sequence runtime looks for due steps when none were left, and how often segments sync. */
export interface SequenceRuntimeSettings {
  pollMs: number;
  segmentSyncMs: number;
}

/**
 * SEQUENCE_SEGMENT_SYNC_INTERVAL: how often init_segment_id sequences enrol their segments' new
 * members, a duration such as `15m` or `500ms` (default 15 minutes). The poll is about a second:
 * a step falls due at most that long before a dispatcher looks (docs/sequences.md, "Runtime").
 */
export function sequencesConfig(env: NodeJS.ProcessEnv = process.env): SequenceRuntimeSettings {
  const raw = env.SEQUENCE_SEGMENT_SYNC_INTERVAL;
  let segmentSyncMs = 15 * 60 * 1000;
  if (raw !== undefined && raw !== '') {
    const parsed = (() => {
      try {
        return parseRetrySchedule(raw);
      } catch {
        return [];
      }
    })();
    if (parsed.length !== 1 || !(parsed[0]! > 0)) {
      throw new Error('Invalid configuration: "SEQUENCE_SEGMENT_SYNC_INTERVAL" must be a duration such as 15m, 30s or 500ms');
    }
    segmentSyncMs = parsed[0]!;
  }
  return { pollMs: 1_000, segmentSyncMs };
}

/**
 * A development-and-test knob (beyond the documented variables): a positive integer, or
 * undefined when unset.
 */
function positiveKnob(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`Invalid configuration: "${name}" must be a positive integer`);
  return value;
}

/**
 * The sending options: PUBLIC_URL from the shared configuration, the rest at their defaults.
 * MAILCAST_SEND_LEASE_MS is the send lease (default 60 s): a database outage shorter than it
 * costs no duplicate, and a dead dispatcher's claims return after it
 * (docs/sending-reliability.md). Development and test only: MAILCAST_SEND_SWEEP_MS,
 * MAILCAST_SEND_CONCURRENCY and MAILCAST_SEND_RETRY_SCHEDULE (e.g. `200ms,400ms`) shorten what
 * a test would otherwise wait minutes for. MAILCAST_SEND_COMMIT_WAIT_MS is how long an outcome
 * waits for company before its group commits (default 5): PostgreSQL's CPU per email follows the
 * statements per email more than the rows (bench/NOTES.md, "Sending near the SMTP ceiling"), so
 * a longer wait trades each message's latency for fewer commits (docs/broadcasts-and-sending.md).
 */
export function sendingConfig(publicUrl: string, env: NodeJS.ProcessEnv = process.env): SendingOptions {
  const options = defaultSendingOptions(publicUrl, smtpConnections(env));
  const leaseMs = positiveKnob(env, 'MAILCAST_SEND_LEASE_MS');
  const sweepIntervalMs = positiveKnob(env, 'MAILCAST_SEND_SWEEP_MS');
  const concurrency = positiveKnob(env, 'MAILCAST_SEND_CONCURRENCY');
  const commitWaitMs = positiveKnob(env, 'MAILCAST_SEND_COMMIT_WAIT_MS');
  const schedule = env.MAILCAST_SEND_RETRY_SCHEDULE;
  return {
    ...options,
    ...(leaseMs !== undefined ? { leaseMs } : {}),
    ...(sweepIntervalMs !== undefined ? { sweepIntervalMs } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(commitWaitMs !== undefined ? { commitGroup: { ...options.commitGroup, maxWaitMs: commitWaitMs } } : {}),
    ...(schedule ? { retryScheduleMs: parseRetrySchedule(schedule) } : {}),
  };
}

/**
 * Pooled SMTP connections per email server (MAILCAST_SMTP_CONNECTIONS): for a server that
 * allows fewer than the default, or a distant one that is faster with more.
 */
export function smtpConnections(env: NodeJS.ProcessEnv = process.env): number {
  return positiveKnob(env, 'MAILCAST_SMTP_CONNECTIONS') ?? DEFAULT_CONNECTIONS_PER_SERVER;
}

/**
 * SMTP threads (MAILCAST_SMTP_THREADS): composing and writing messages runs on this many worker
 * threads, so one dispatcher uses more than one core; 0 keeps it on the main thread. Default:
 * one per core but the main thread's, at most 4 (past that the main thread's bookkeeping is the
 * limit: run another dispatcher).
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

/**
 * Broadcast rendering threads (docs/security.md "HTML"): MAILCAST_RENDER_THREADS (default 1),
 * each with a heap of MAILCAST_RENDER_HEAP_MB (default 256) and MAILCAST_RENDER_TIME_LIMIT_MS
 * (default 2000) per recipient; past either, that recipient fails, the thread is replaced and the
 * job's remaining recipients fail unrendered (docs/broadcasts-and-sending.md "Content that cannot
 * be rendered"). The templates threads' limit is the shared MAILCAST_TEMPLATE_TIME_LIMIT_MS.
 */
export function renderConfig(env: NodeJS.ProcessEnv = process.env): DispatcherConfig['render'] {
  return {
    threads: positiveKnob(env, 'MAILCAST_RENDER_THREADS') ?? DEFAULT_RENDER_THREADS,
    heapMb: positiveKnob(env, 'MAILCAST_RENDER_HEAP_MB') ?? DEFAULT_RENDER_HEAP_MB,
    timeLimitMs: positiveKnob(env, 'MAILCAST_RENDER_TIME_LIMIT_MS') ?? DEFAULT_RENDER_TIME_LIMIT_MS,
  };
}

/**
 * Overrides of the stalled-delivery sweep, development and test only, like the MAILCAST_SEND_*
 * knobs: MAILCAST_WEBHOOK_SWEEP_MS (how often) and MAILCAST_WEBHOOK_STALLED_MS (how old a
 * pending delivery must be). A delivery lost with its dispatcher (held in memory or as a job)
 * or to a database restart is otherwise picked up again only after the 20-minute default.
 */
export function webhookRelayConfig(env: NodeJS.ProcessEnv = process.env): DispatcherConfig['webhookRelay'] {
  const sweepEveryMs = positiveKnob(env, 'MAILCAST_WEBHOOK_SWEEP_MS');
  const stalledAfterMs = positiveKnob(env, 'MAILCAST_WEBHOOK_STALLED_MS');
  return {
    ...(sweepEveryMs !== undefined ? { sweepEveryMs } : {}),
    ...(stalledAfterMs !== undefined ? { stalledAfterMs } : {}),
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Retention as the dispatcher runs it: the policy, and how often a run starts. */
export interface RetentionSettings {
  policy: RetentionPolicy;
  intervalMs: number;
}

/** The defaults of docs/retention.md, in days; 0 keeps a table's rows for ever. */
export const RETENTION_DEFAULT_DAYS = { webhookDeliveries: 30, events: 30, emailEvents: 180, auditLog: 365 } as const;

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
 * MAILCAST_RETENTION_WEBHOOK_DELIVERIES_DAYS, MAILCAST_RETENTION_EVENTS_DAYS,
 * MAILCAST_RETENTION_EMAIL_EVENTS_DAYS and MAILCAST_RETENTION_AUDIT_LOG_DAYS (0: keep for ever), MAILCAST_RETENTION_INTERVAL_MS (how
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
        audit_log: days('MAILCAST_RETENTION_AUDIT_LOG_DAYS', RETENTION_DEFAULT_DAYS.auditLog),
      },
      batchSize: 5_000,
      maxBatchesPerRun: 100,
    },
    intervalMs: wholeNumber(env, 'MAILCAST_RETENTION_INTERVAL_MS', 60 * 60 * 1000, 1),
  };
}
