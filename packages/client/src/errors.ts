/** The X-RateLimit-* headers of the last answer (docs/api-decisions.md), when the limit is on. */
export interface RateLimitInfo {
  limit: number;
  remaining: number;
  /** When the current one-minute window rolls over. */
  reset: Date;
}

export type FieldErrors = Record<string, string[]>;

/**
 * Any answer outside 2xx. `error` is the `{"error": ...}` message, `errors` the field errors of
 * `{"errors": {...}}` (subscriber validation); `retryAfterSeconds` is set on a 429 and a 503 (the database out of reach).
 */
export class MailcastError extends Error {
  override readonly name = 'MailcastError';
  readonly error: string | undefined;
  readonly errors: FieldErrors | undefined;

  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly operationId: string,
    readonly retryAfterSeconds: number | undefined = undefined,
    readonly rateLimit: RateLimitInfo | undefined = undefined,
  ) {
    const error = MailcastError.errorOf(body);
    const errors = MailcastError.errorsOf(body);
    const detail =
      error ??
      (errors
        ? Object.entries(errors)
            .map(([field, messages]) => `${field} ${messages.join(', ')}`)
            .join('; ')
        : typeof body === 'string' && body !== ''
          ? body.slice(0, 200)
          : 'no detail');
    super(`${operationId} failed with ${status}: ${detail}`);
    this.error = error;
    this.errors = errors;
  }

  private static errorOf(body: unknown): string | undefined {
    if (typeof body !== 'object' || body === null) return undefined;
    const value = (body as { error?: unknown }).error;
    return typeof value === 'string' ? value : undefined;
  }

  private static errorsOf(body: unknown): FieldErrors | undefined {
    if (typeof body !== 'object' || body === null) return undefined;
    const value = (body as { errors?: unknown }).errors;
    if (typeof value !== 'object' || value === null) return undefined;
    const out: FieldErrors = {};
    for (const [field, messages] of Object.entries(value)) {
      out[field] = Array.isArray(messages) ? messages.map(String) : [String(messages)];
    }
    return out;
  }
}
