import { eventually } from '@mailcast/testkit';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { useApi } from '../../test-support/harness';

/**
 * Issue 34, finding 3: a segment of 100 `contains` rules with 1,000-character values over one
 * subscriber with 90 KB of custom data took 20.5 s to count; ten counts in parallel used up the
 * api's connections, another channel's list answered 503 after 60 s, and PostgreSQL kept running
 * the abandoned queries. Segments are now bounded when written, and every evaluation runs under a
 * statement time-out, a few per channel at a time, and is cancelled when its client goes away
 * (docs/segments.md, "Bounds").
 */
// Distinct values (PostgreSQL folds identical OR arms into one), each failing only at its `b`.
const hostileRules = Array.from({ length: 100 }, (_, i) => ({
  field: 'custom_data.note',
  operator: 'contains',
  value: `${'a'.repeat(999 - i)}b${'c'.repeat(i)}`,
}));
const COST_MESSAGE = (cost: number) =>
  `cost ${cost} to evaluate, more than the maximum of 2000 (each rule costs 1, and a contains, starts_with or ends_with rule 1 more per character of its value)`;

/** Rules at the bound: twenty substring rules of 99 characters, each failing only at its `b`. */
const atBoundRules = Array.from({ length: 20 }, (_, i) => ({
  field: 'custom_data.note',
  operator: 'contains',
  value: `${'a'.repeat(98 - i)}b${'c'.repeat(i)}`,
}));

/**
 * Channel A's subscribers with 90 KB of custom data each, a segment at the bound over them (a few
 * seconds of matching in all, stopped between rows by the time-out), and one saved before the
 * bounds; channel B's one subscriber.
 */
async function seedAttack(api: ReturnType<typeof useApi>, bigRows: number): Promise<{ a: string; b: string; atBound: number; legacy: number }> {
  const attacker = await api.fixtures.aTenant();
  const healthy = await api.fixtures.aTenant();
  const note = 'a'.repeat(90_000);
  await api.database
    .db('subscribers')
    .insert(Array.from({ length: bigRows }, (_, i) => ({ channel_id: attacker.channel.id, email: `big${i}@example.com`, custom_data: { note } })));
  await api.database.db('subscribers').insert({ channel_id: healthy.channel.id, email: 'calm@example.com' });
  const created = await request(api.app)
    .post('/api/v1/segments')
    .set('Authorization', `Bearer ${attacker.token}`)
    .send({ name: 'at the bound', match: 'any', rules: atBoundRules });
  expect(created.status).toBe(201);
  const [{ id: legacy }] = await api.database
    .db('segments')
    .insert({ channel_id: attacker.channel.id, name: 'saved before the bounds', match: 'any', rules: JSON.stringify(hostileRules) })
    .returning('id');
  return { a: attacker.token, b: healthy.token, atBound: created.body.id, legacy: Number(legacy) };
}

const runningSegmentQueries = async (api: ReturnType<typeof useApi>) =>
  Number(
    (
      await api.database.db.raw(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE state = 'active' AND query ILIKE '%custom_data ->>%' AND pid <> pg_backend_pid()`,
      )
    ).rows[0].n,
  );

describe('segment bounds at write time', () => {
  const api = useApi();
  let token: string;
  beforeAll(async () => {
    token = (await api.fixtures.aTenant()).token;
  });
  const post = (body: object) => request(api.app).post('/api/v1/segments').set('Authorization', `Bearer ${token}`).send(body);

  it('refuses a rule set past the cost bound with a 422 naming it, and writes nothing', async () => {
    const refused = await post({ segment: { name: 'hostile', match: 'any', rules: hostileRules } });
    expect([refused.status, refused.body]).toEqual([422, { errors: { rules: [COST_MESSAGE(100_100)] } }]);
    const justOver = Array.from({ length: 20 }, (_, i) => ({
      field: 'first_name',
      operator: i === 0 ? 'starts_with' : 'contains',
      value: 'x'.repeat(i === 0 ? 100 : 99),
    }));
    expect((await post({ name: 'one over', rules: justOver })).body).toEqual({ errors: { rules: [COST_MESSAGE(2_001)] } });
    expect(await api.database.db('segments').count()).toEqual([{ count: 0 }]);
    const atBound = justOver.map((r) => ({ ...r, value: 'x'.repeat(99) }));
    expect((await post({ name: 'at the bound', rules: atBound })).status).toBe(201);
  });
});

describe('segment evaluations under a time-out, a few per channel at a time', () => {
  const api = useApi({ env: { MAILCAST_SEGMENT_TIMEOUT_MS: '500', RATE_LIMIT_PER_MINUTE: '0' } });
  let seeded: Awaited<ReturnType<typeof seedAttack>>;
  beforeAll(async () => {
    seeded = await seedAttack(api, 12);
  });
  const get = (path: string, token: string) => request(api.app).get(path).set('Authorization', `Bearer ${token}`);

  it("stops each count at the time-out with a 422, while another channel's list answers within 1 s", async () => {
    const started = performance.now();
    const counts = Array.from({ length: 10 }, () => get(`/api/v1/segments/${seeded.atBound}.json`, seeded.a).then((r) => r));
    // While all ten are in flight, the healthy channel reads its subscribers.
    const healthyStarted = performance.now();
    const list = await get('/api/v1/subscribers.json', seeded.b);
    expect(performance.now() - healthyStarted).toBeLessThan(1_000);
    expect(list.status).toBe(200);
    expect(list.body.subscribers.map((s: { email: string }) => s.email)).toEqual(['calm@example.com']);

    const answers = await Promise.all(counts);
    for (const res of answers) {
      expect([res.status, res.body]).toEqual([
        422,
        { error: 'Segment took longer than 500 ms to evaluate: narrow its rules (fewer or shorter contains, starts_with and ends_with values)' },
      ]);
    }
    // Two at a time, each stopped soon after 500 ms: seconds, not ten times the whole match.
    expect(performance.now() - started).toBeLessThan(10_000);
    // pg_stat_activity may show the last one a moment after its error came back.
    await eventually(async () => ((await runningSegmentQueries(api)) === 0 ? true : undefined), 500, 20);
  }, 60_000);

  it('does not evaluate a segment saved before the bounds that costs more than they allow', async () => {
    const started = performance.now();
    const res = await get(`/api/v1/segments/${seeded.legacy}.json`, seeded.a);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect([res.status, res.body]).toEqual([422, { error: `Segment rules ${COST_MESSAGE(100_100)}: edit them to read the segment` }]);
  });
});

describe('a segment evaluation whose client goes away', () => {
  const api = useApi({ env: { MAILCAST_SEGMENT_TIMEOUT_MS: '60000' } });
  let seeded: Awaited<ReturnType<typeof seedAttack>>;
  let server: http.Server;
  beforeAll(async () => {
    seeded = await seedAttack(api, 40);
    server = api.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('is cancelled in PostgreSQL too', async () => {
    const { port } = server.address() as AddressInfo;
    const req = http.get({ host: '127.0.0.1', port, path: `/api/v1/segments/${seeded.atBound}.json`, headers: { authorization: `Bearer ${seeded.a}` } });
    req.on('error', () => undefined);
    await eventually(async () => ((await runningSegmentQueries(api)) > 0 ? true : undefined), 5_000, 20);
    req.destroy();
    // Without the cancel the match over forty rows would run on for seconds.
    await eventually(async () => ((await runningSegmentQueries(api)) === 0 ? true : undefined), 1_000, 20);
    expect(await runningSegmentQueries(api)).toBe(0);
  }, 30_000);
});
