/**
 * Stable codes of every invariant the domain enforces. The application layer maps a code to
 * an HTTP status (all of them are 422s per the spec's Errors section), so codes never change
 * once published; the message is the spec's text where the spec gives one.
 */
export type DomainErrorCode =
  | 'broadcast_not_updatable'
  | 'broadcast_not_deletable'
  | 'broadcast_not_sendable_status'
  | 'broadcast_not_ready'
  | 'smtp_not_configured'
  | 'broadcast_not_schedulable'
  | 'scheduled_time_not_future'
  | 'broadcast_not_scheduled'
  | 'broadcast_not_pausable'
  | 'broadcast_not_resumable'
  | 'broadcast_not_abortable'
  | 'invalid_timezone'
  | 'invalid_scheduled_time'
  | 'invalid_timeframe'
  | 'invalid_metric'
  | 'invalid_sort'
  | 'invalid_order'
  | 'invalid_limit'
  | 'invalid_duration'
  | 'invalid_secret_entropy'
  | 'sequence_step_tree'
  | 'enrolment_transition';

export class DomainError extends Error {
  override readonly name = 'DomainError';
  readonly code: DomainErrorCode;

  constructor(code: DomainErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
