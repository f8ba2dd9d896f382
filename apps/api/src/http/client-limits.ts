import { RateLimitedError, UnauthorizedError } from '@mailcast/core';
import { SIGN_IN_ADDRESS_WINDOW_MS, SIGN_IN_FAILURES_PER_ADDRESS } from '@mailcast/domain';
import type { RequestHandler } from 'express';
import { createHash } from 'node:crypto';

/**
 * Per client address limits kept in this process's memory (docs/security.md "Per-address limits"):
 * they exist to make floods cost nothing, so counting them must not cost a database round trip.
 * With several api replicas each counts its own share.
 */
const WINDOW_MS = 60_000;
/** Beyond this many addresses in one window, the oldest are forgotten (memory stays bounded). */
const MAX_KEYS = 100_000;

export const PUBLIC_REQUESTS_PER_MINUTE = 300;
/** How long a token that failed to authenticate is answered 401 without a look-up. */
export const BOGUS_TOKEN_TTL_MS = 60_000;
const MAX_BOGUS_TOKENS = 10_000;

/** Fixed windows per key: one minute, unless a limit counts over a longer one (sign-in's 15 minutes). */
export class WindowCounter {
  private windowStart = 0;
  private counts = new Map<string, number>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly windowMs: number = WINDOW_MS,
  ) {}

  private roll(): void {
    const start = Math.floor(this.now() / this.windowMs) * this.windowMs;
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.counts = new Map();
    }
  }

  count(key: string): number {
    this.roll();
    if (this.counts.size >= MAX_KEYS && !this.counts.has(key)) this.counts.delete(this.counts.keys().next().value!);
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return n;
  }

  peek(key: string): number {
    this.roll();
    return this.counts.get(key) ?? 0;
  }

  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.windowStart + this.windowMs - this.now()) / 1000));
  }
}

const addressOf = (ip: string | undefined) => ip ?? 'unknown';

/** The public pages and tracking links: at most PUBLIC_REQUESTS_PER_MINUTE per address, then 429. */
export function publicLimit(counter = new WindowCounter()): RequestHandler {
  return (req, _res, next) => {
    if (counter.count(addressOf(req.ip)) > PUBLIC_REQUESTS_PER_MINUTE) {
      next(new RateLimitedError(counter.retryAfterSeconds()));
      return;
    }
    next();
  };
}

/**
 * Wraps authentication: an address past `limit` failures a minute (the AUTH_FAILURES_PER_MINUTE
 * setting) is answered 429 before any look-up, and a token that just failed is answered 401 from
 * memory for BOGUS_TOKEN_TTL_MS.
 * A token is 256 random bits, so one that failed cannot become valid later.
 */
export function failedAuthLimit(authenticate: RequestHandler, limit: number, now: () => number = Date.now): RequestHandler {
  const failures = new WindowCounter(now);
  const bogus = new Map<string, number>();
  return (req, res, next) => {
    const address = addressOf(req.ip);
    if (failures.peek(address) >= limit) {
      next(new RateLimitedError(failures.retryAfterSeconds()));
      return;
    }
    const header = req.get('authorization') ?? '';
    // Only a token is remembered as bogus: a request without one (a dashboard session's) is
    // looked up each time, so one dead cookie does not refuse the live ones (docs/teams.md).
    const key = header === '' ? undefined : createHash('sha256').update(header).digest('base64url');
    const until = key === undefined ? undefined : bogus.get(key);
    if (until !== undefined && until > now()) {
      failures.count(address);
      next(new UnauthorizedError());
      return;
    }
    const done = (error?: unknown) => {
      if (error instanceof UnauthorizedError) {
        failures.count(address);
        if (key !== undefined) {
          if (bogus.size >= MAX_BOGUS_TOKENS) bogus.delete(bogus.keys().next().value!);
          bogus.set(key, now() + BOGUS_TOKEN_TTL_MS);
        }
      }
      next(error);
    };
    Promise.resolve(authenticate(req, res, done)).catch(done);
  };
}

/**
 * Failed sign-ins per client address (docs/teams.md, Lockout): past SIGN_IN_FAILURES_PER_ADDRESS
 * in a 15-minute window, 429 with Retry-After before any look-up. Counted in memory like the
 * other per-address limits; `now` is the api's clock, so tests move it.
 */
export class SignInFailures {
  private readonly counter: WindowCounter;

  constructor(
    now: () => number,
    private readonly limit = SIGN_IN_FAILURES_PER_ADDRESS,
  ) {
    this.counter = new WindowCounter(now, SIGN_IN_ADDRESS_WINDOW_MS);
  }

  /** Throws the 429 when the address is past the limit. */
  check(ip: string | undefined): void {
    if (this.counter.peek(addressOf(ip)) >= this.limit) throw new RateLimitedError(this.counter.retryAfterSeconds());
  }

  fail(ip: string | undefined): void {
    this.counter.count(addressOf(ip));
  }
}
