import request from 'supertest';
import { useApi } from '../test-support/harness';
import { loadConfig } from '@mailcast/adapters';
import { PUBLIC_REQUESTS_PER_MINUTE } from './client-limits';

/** The api under test runs on the default setting (docs/security.md). */
const AUTH_FAILURES_PER_MINUTE = loadConfig({}).authFailuresPerMinute;

/** Issue 16, findings 3 and 4: floods from one address cost no database work (docs/security.md). */
// Many sequential requests: on a loaded machine they outlast the default test timeout.
describe('per-address limits', () => {
  const api = useApi();
  let tokenLookups = 0;

  beforeAll(async () => {
    // Counts every statement the api sends that reads the token table.
    api.database.db.on('query', (q: { sql: string }) => {
      if (/\bapi_tokens\b/.test(q.sql)) tokenLookups += 1;
    });
  });

  it('1,000 requests with bogus tokens cost a bounded number of token look-ups, then 429', async () => {
    const statuses = new Map<number, number>();
    const before = tokenLookups;
    for (let i = 0; i < 1000; i++) {
      // Half the requests repeat one bogus token, half bring a new one each time.
      const token = i % 2 === 0 ? 'mc_bogus' : `mc_bogus_${i}`;
      const res = await request(api.app).get('/api/v1/broadcasts').set('Authorization', `Bearer ${token}`);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status === 429) expect(res.headers['retry-after']).toMatch(/^\d+$/);
    }
    // Windows are whole minutes: one boundary may fall inside the test, opening a second window.
    const windows = 2;
    expect(tokenLookups - before).toBeLessThanOrEqual(windows * AUTH_FAILURES_PER_MINUTE + 1);
    expect(statuses.get(401)).toBeGreaterThanOrEqual(AUTH_FAILURES_PER_MINUTE);
    expect(statuses.get(401)).toBeLessThanOrEqual(windows * AUTH_FAILURES_PER_MINUTE);
    expect(statuses.get(429)).toBe(1000 - statuses.get(401)!);
  }, 180_000);

  it('limits the public routes per address: past the limit, 429 without a look-up', async () => {
    const statuses = new Map<number, number>();
    // Twice the limit and more: however a minute boundary falls, at least 20 are refused.
    const sent = 2 * PUBLIC_REQUESTS_PER_MINUTE + 20;
    for (let i = 0; i < sent; i++) {
      const res = await request(api.app).get(`/t/o/${i}-AAAAAAAAAAAAAAAAAAAAAA`);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
    expect(statuses.get(429)).toBeGreaterThanOrEqual(20);
    expect(statuses.get(404)).toBeGreaterThanOrEqual(PUBLIC_REQUESTS_PER_MINUTE);
    expect(statuses.get(404)! + statuses.get(429)!).toBe(sent);
    // A person's link past the limit gets the 429 as a page, with Retry-After (within a window
    // more, should a minute boundary have just reset the count).
    let page = await request(api.app).get('/u/AAAAAAAAAAAAAAAAAAAAAA');
    for (let i = 0; page.status !== 429 && i <= PUBLIC_REQUESTS_PER_MINUTE; i++) page = await request(api.app).get('/u/AAAAAAAAAAAAAAAAAAAAAA');
    expect([page.status, page.headers['content-type'], Number(page.headers['retry-after']) >= 1]).toEqual([429, 'text/html; charset=utf-8', true]);
    expect(page.text).toContain('<h1>Too many requests</h1>');
  }, 180_000);
});

/**
 * Issue 34, "also seen": X-Forwarded-For was believed from any loopback peer, so a caller on the
 * same host (or behind a proxy that passes the header on) named a new address per request and
 * was never limited. It is believed only from TRUSTED_PROXIES (docs/security.md).
 */
describe('X-Forwarded-For and the per-address limits', () => {
  /** AUTH_FAILURES_PER_MINUTE + 10 failed authentications, each naming a client of its own. */
  const spoofedFailures = async (app: Parameters<typeof request>[0]): Promise<number[]> => {
    const statuses: number[] = [];
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE + 10; i++) {
      const res = await request(app)
        .get('/api/v1/broadcasts')
        .set('Authorization', 'Bearer mc_bogus')
        .set('X-Forwarded-For', `203.0.113.${i % 250}, 198.51.100.${i % 250}`);
      statuses.push(res.status);
    }
    return statuses;
  };

  describe('with no trusted proxy (the default)', () => {
    const api = useApi();

    it('counts a caller by its own address, whatever X-Forwarded-For says', async () => {
      const statuses = await spoofedFailures(api.app);
      // Past the limit the address is refused (a minute boundary may reset the count once).
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(10);
      expect(statuses.filter((s) => s === 401).length + statuses.filter((s) => s === 429).length).toBe(statuses.length);
    }, 60_000);
  });

  describe('behind a trusted proxy', () => {
    const api = useApi({ env: { TRUSTED_PROXIES: '127.0.0.1,::1,::ffff:127.0.0.1' } });

    it('counts each client the proxy names apart', async () => {
      const statuses = await spoofedFailures(api.app);
      expect(new Set(statuses)).toEqual(new Set([401]));
    }, 60_000);
  });
});
