/**
 * Whether an error says PostgreSQL is out of reach or not taking work at the moment, rather than
 * that the statement or its data was wrong: the server refuses or drops connections (down,
 * restarting, shutting down, still starting up, out of connection slots, or the database closed to
 * connections), the network to it fails, or the pool waited its whole time-out for a connection.
 * Such a request may well succeed if sent again shortly, so the api answers it 503 with
 * Retry-After (docs/api-decisions.md, "Database outages") instead of 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; message?: unknown; name?: unknown; errors?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  if (NETWORK_CODES.has(code)) return true;
  // SQLSTATE class 08: connection exceptions; 57P01-57P03: shutting down, crashed, starting up;
  // 53300: too many connections.
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300') return true;
  // 55000 is also raised by statements; only its refusal of new connections is an outage.
  if (code === '55000' && message.includes('is not currently accepting connections')) return true;
  // The pg driver's own words for a connection that ended under it or took too long to open
  // (knex puts the statement before them: "ROLLBACK - Connection terminated ..."), and knex's
  // pool time-out.
  if (DRIVER_MESSAGES.some((words) => message.startsWith(words) || message.includes(` - ${words}`))) return true;
  if (e.name === 'KnexTimeoutError') return true;
  // Node may try several addresses of one host and report all their failures at once.
  return Array.isArray(e.errors) && e.errors.length > 0 && e.errors.every(isDatabaseUnavailable);
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

const DRIVER_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'timeout expired',
];

/**
 * Whether PostgreSQL stopped a statement at its statement time-out (the api's pool sets one,
 * docs/security.md "Statement time-outs"): query_canceled, in the server's words for the time-out
 * rather than for a cancel request.
 */
export function isStatementTimeout(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; message?: unknown };
  return e.code === '57014' && typeof e.message === 'string' && e.message.includes('statement timeout');
}
