import { ConflictError, ForbiddenError, NotFoundError, RateLimitedError, UnauthorizedError, ValidationError, type FieldErrors } from '@mailcast/core';
import { DomainError, escapeHtml } from '@mailcast/domain';
import { isDatabaseUnavailable, isStatementTimeout, type Logger } from '@mailcast/adapters';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { sendPage } from '../public/page';
import { loggablePath, pathOf } from './request-log';

type ErrorBody = { error: string } | { errors: FieldErrors };

/** The 503 answer while PostgreSQL is out of reach (docs/api-decisions.md, "Database outages"). */
export const DATABASE_UNAVAILABLE = 'Service unavailable: the database cannot be reached, try again shortly';
export const DATABASE_RETRY_AFTER_SECONDS = 5;
/** The 503 answer of a request one of whose statements ran past the api's statement time-out. */
export const STATEMENT_TIMED_OUT = 'Service unavailable: the request took longer than the database allows, try again shortly';

/** Errors raised by body-parser and other http-errors producers carry status and type. */
interface HttpError {
  status: number;
  type?: string;
  expose?: boolean;
}

const isHttpError = (error: unknown): error is HttpError => typeof error === 'object' && error !== null && typeof (error as HttpError).status === 'number';

/** The one table from error to status and body (spec: Errors; docs/api-decisions.md HTTP). */
export function toHttpResponse(error: unknown): { status: number; body: ErrorBody; headers?: Record<string, string> } | null {
  if (error instanceof UnauthorizedError) return { status: 401, body: { error: error.message } };
  if (error instanceof ForbiddenError) return { status: 403, body: { error: error.message } };
  if (error instanceof NotFoundError) return { status: 404, body: { error: error.message } };
  if (error instanceof ConflictError) return { status: 409, body: { error: error.message } };
  if (error instanceof ValidationError) {
    return { status: 422, body: error.fields ? { errors: error.fields } : { error: error.message } };
  }
  if (error instanceof RateLimitedError) {
    return { status: 429, body: { error: error.message }, headers: { 'Retry-After': String(error.retryAfterSeconds) } };
  }
  if (error instanceof DomainError) return { status: 422, body: { error: error.message } };
  if (isHttpError(error) && error.status >= 400 && error.status < 500) {
    switch (error.type) {
      case 'entity.parse.failed':
        return { status: 400, body: { error: 'Invalid JSON' } };
      case 'entity.too.large':
        return { status: 413, body: { error: 'Request body too large' } };
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return { status: 415, body: { error: 'Unsupported content encoding' } };
      default:
        return { status: error.status, body: { error: 'Bad request' } };
    }
  }
  return null;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const answer = (status: number, body: ErrorBody, headers: Record<string, string> = {}) => {
      res.set(headers);
      if (PERSON_FACING.test(pathOf(req))) sendErrorPage(res, status, body);
      else res.status(status).json(body);
    };
    const known = toHttpResponse(error);
    if (known) {
      answer(known.status, known.body, known.headers);
      return;
    }
    // PostgreSQL out of reach (down, restarting, out of connections): worth trying again soon,
    // so 503 with Retry-After, and a warning without a stack trace for each such request.
    if (isDatabaseUnavailable(error)) {
      logger.warn('database unavailable', {
        method: req.method,
        path: loggablePath(pathOf(req)),
        error: error instanceof Error ? error.message : String(error),
      });
      answer(503, { error: DATABASE_UNAVAILABLE }, { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) });
      return;
    }
    // A statement stopped at the api's statement time-out (docs/security.md): the connection is
    // free again; the request may succeed when the database is less busy.
    if (isStatementTimeout(error)) {
      logger.warn('statement time-out', { method: req.method, path: loggablePath(pathOf(req)) });
      answer(503, { error: STATEMENT_TIMED_OUT }, { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) });
      return;
    }
    // Unexpected: logged in full under an id the caller can quote; the body says nothing more.
    const id = randomUUID();
    logger.error('unhandled error', {
      errorId: id,
      method: req.method,
      path: loggablePath(pathOf(req)),
      error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
    });
    answer(500, { error: `Internal server error (id ${id})` });
  };
}

/**
 * The links people open from an email in a browser (unsubscribe, confirmation, tracked clicks):
 * their errors are small pages, not JSON. The status and headers are the same either way.
 */
const PERSON_FACING = /^\/(u|confirm|t\/c|preferences)\//;

function sendErrorPage(res: Response, status: number, body: ErrorBody): void {
  const message = 'error' in body ? body.error : 'The request is not valid.';
  if (status === 503) {
    sendPage(res, 503, 'Try again in a moment', '<p>This page cannot be shown right now. Please try again in a minute.</p>');
  } else if (status === 429) {
    sendPage(res, 429, 'Too many requests', '<p>Please wait a minute, then try again.</p>');
  } else if (status >= 500) {
    sendPage(res, status, 'Something went wrong', `<p>Please try again later. ${escapeHtml(message)}</p>`);
  } else {
    sendPage(res, status, 'This link cannot be used', `<p>${escapeHtml(message)}</p>`);
  }
}

export const notFound: RequestHandler = (_req, res) => {
  res.status(404).json({ error: 'Not found' });
};
