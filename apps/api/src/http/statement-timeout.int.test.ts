import request from 'supertest';
import { STATEMENT_TIMED_OUT } from './error-handler';
import { useApi } from '../test-support/harness';

/**
 * Issue 34, finding 3, for every list the api serves: a statement that runs past the api's
 * statement time-out (MAILCAST_API_STATEMENT_TIMEOUT_MS, docs/security.md) is stopped by
 * PostgreSQL and its request answered 503, instead of holding a pool connection for as long as
 * the query cares to run. A lock held elsewhere stands in for a query that would run long.
 */
describe('the api pool under a statement time-out', () => {
  const api = useApi({ statementTimeoutMs: 300 });
  let token: string;
  beforeAll(async () => {
    token = (await api.fixtures.aTenant()).token;
  });

  it('stops a list statement past the time-out and answers 503 with Retry-After; the next request is served', async () => {
    const blocker = await api.database.db.transaction();
    try {
      await blocker.raw('LOCK TABLE subscribers IN ACCESS EXCLUSIVE MODE');
      const started = performance.now();
      const stuck = await request(api.app).get('/api/v1/subscribers.json').set('Authorization', `Bearer ${token}`);
      expect([stuck.status, stuck.body, stuck.headers['retry-after']]).toEqual([503, { error: STATEMENT_TIMED_OUT }, '5']);
      expect(performance.now() - started).toBeLessThan(2_000);
    } finally {
      await blocker.rollback();
    }
    const served = await request(api.app).get('/api/v1/subscribers.json').set('Authorization', `Bearer ${token}`);
    expect(served.status).toBe(200);
    expect(api.logs.filter((l) => l.level === 'error')).toEqual([]);
  });
});
