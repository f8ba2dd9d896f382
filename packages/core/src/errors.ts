/**
 * Application errors. They carry meaning, never an HTTP status: the api's error handler is the
 * one table from these to status codes and bodies (docs/operations.md, How an error travels).
 */
export abstract class AppError extends Error {
  abstract readonly kind: 'not_found' | 'validation' | 'unauthorized' | 'forbidden' | 'rate_limited' | 'conflict';
}

/** The resource does not exist in the caller's channel (spec: another channel's is nonexistent). */
export class NotFoundError extends AppError {
  readonly kind = 'not_found' as const;
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

export type FieldErrors = Readonly<Record<string, readonly string[]>>;

/** A 422: either one message (`{error}`) or errors keyed by field (`{errors}`), as the spec shows. */
export class ValidationError extends AppError {
  readonly kind = 'validation' as const;
  readonly fields: FieldErrors | undefined;
  constructor(message: string, fields?: FieldErrors) {
    super(message);
    this.name = 'ValidationError';
    this.fields = fields;
  }

  static forFields(fields: FieldErrors): ValidationError {
    const summary = Object.entries(fields)
      .map(([field, messages]) => `${field} ${messages.join(', ')}`)
      .join('; ');
    return new ValidationError(summary, fields);
  }
}

/**
 * Missing, unknown or revoked token, or a token without the permission (spec: 401). Sign-in's
 * own 401s say more (docs/teams.md, Signing in): "Invalid email or password", "Not signed in".
 */
export class UnauthorizedError extends AppError {
  readonly kind = 'unauthorized' as const;
  constructor(message = 'Unauthorized') {
    super(message);
    this.name = 'UnauthorizedError';
  }
}

/** A valid token asking for what only another kind of token may do (an admin token's work: 403). */
export class ForbiddenError extends AppError {
  readonly kind = 'forbidden' as const;
  constructor(message: string) {
    super(message);
    this.name = 'ForbiddenError';
  }
}

/** The token used up its requests for this window (docs/auth.md: 429 with Retry-After). */
export class RateLimitedError extends AppError {
  readonly kind = 'rate_limited' as const;
  constructor(readonly retryAfterSeconds: number) {
    super('Rate limit exceeded');
    this.name = 'RateLimitedError';
  }
}

/** The request collides with one still in progress (an Idempotency-Key in flight: a 409). */
export class ConflictError extends AppError {
  readonly kind = 'conflict' as const;
  constructor(message: string) {
    super(message);
    this.name = 'ConflictError';
  }
}
