import { DEFAULT_SEND_RETRY_SCHEDULE_MS } from '@mailcast/domain';
import type { CommitGroupOptions } from '@mailcast/send-engine';

/** How one dispatcher works a broadcast. Tests shorten the times; production keeps the defaults. */
export interface SendingOptions {
  /** Base of tracking and unsubscribe links (PUBLIC_URL). */
  publicUrl: string;
  /**
   * Messages one dispatcher has in flight per broadcast: SMTP hand-offs plus outcomes waiting
   * for their commit. It bounds what a crash may resend (docs/broadcasts-and-sending.md: exactly once).
   */
  concurrency: number;
  /**
   * The mailer's connections per server: a server with a per-second limit gets at most this
   * many messages at once from this process, so none waits in the mailer's queue holding a
   * permit (docs/sending-limits.md). Absent: no such cap.
   */
  smtpConnections?: number;
  /** When outcomes are committed together (a group commit: one statement for many). */
  commitGroup: CommitGroupOptions;
  /** Recipients claimed per statement. */
  claimBatchSize: number;
  /** Subscribers inserted per INSERT … SELECT while queueing. */
  materializeBatchSize: number;
  /**
   * The send lease: how long a claim lives, in database time, without its worker's heartbeat; a
   * dead worker's claims return then. A database outage shorter than the lease costs no
   * duplicate (docs/sending-reliability.md). Default 60 s.
   */
  leaseMs: number;
  /**
   * How often a sending job looks whether its broadcast was paused or aborted; once it sees so,
   * it starts no more messages (docs/sending-reliability.md). Default 100 ms.
   */
  statusPollMs: number;
  /** Delays before the retries of a delayed (4xx) or unreachable send. */
  retryScheduleMs: readonly number[];
  /** How long one job works before handing over to a fresh job (pg-boss expires long jobs). */
  sliceMs: number;
  /** Jobs enqueued when sending starts, so idle dispatchers join the broadcast. */
  helperJobs: number;
  /** How often a dispatcher looks for broadcasts whose worker died. */
  sweepIntervalMs: number;
  /** Names this process in claims (host:pid), so an operator can tell who sent what. */
  workerName?: string;
  /** True once the process is shutting down: jobs hand their remaining work to a fresh job. */
  stopRequested?: () => boolean;
}
export const SendingOptions = Symbol.for('mailcast.SendingOptions');

/** The send lease's default (MAILCAST_SEND_LEASE_MS). */
export const DEFAULT_SEND_LEASE_MS = 60_000;

/**
 * `smtpConnections`: the mailer's pooled connections per server (the dispatcher reads them from
 * its configuration; the mailer adapter has the default). Five times as many messages are
 * in flight: the connections stay busy while one group of outcomes commits, the next gathers,
 * and messages cross to and from the SMTP thread. A group is as large as the connections.
 */
export function defaultSendingOptions(publicUrl: string, smtpConnections: number): SendingOptions {
  return {
    publicUrl,
    concurrency: 5 * smtpConnections,
    smtpConnections,
    commitGroup: { size: smtpConnections, maxWaitMs: 5 },
    claimBatchSize: 100,
    materializeBatchSize: 50_000,
    leaseMs: DEFAULT_SEND_LEASE_MS,
    statusPollMs: 100,
    retryScheduleMs: DEFAULT_SEND_RETRY_SCHEDULE_MS,
    sliceMs: 120_000,
    helperJobs: 3,
    sweepIntervalMs: 30_000,
  };
}
