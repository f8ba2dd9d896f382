import { HOSTILE_LIQUID } from '@mailcast/testkit';
import request from 'supertest';
import { useApi } from '../test-support/harness';

/**
 * Issue 34, finding 1: a hostile tenant's preview of a broadcast whose body is Liquid that stays
 * inside one `{{ }}` for seconds held the api's event loop (`/healthz` took 10 s). Channel Liquid
 * now renders on a templates thread stopped past MAILCAST_TEMPLATE_TIME_LIMIT_MS, channels in
 * turn (docs/templates.md "Rendering").
 */
describe('a hostile Liquid preview', () => {
  const api = useApi();

  it("answers 422 past the time limit, while /healthz and another channel's preview answer within 1 s", async () => {
    const hostile = await api.fixtures.aTenant();
    await api.fixtures.aSubscriber(hostile.channel.id, 'mallory@example.com');
    const attack = await api.fixtures.aBroadcast(hostile.channel.id, { subject: 'Hi', body: HOSTILE_LIQUID });
    const healthy = await api.fixtures.aTenant();
    await api.fixtures.aSubscriber(healthy.channel.id, 'ann@example.com', { firstName: 'Ann' });
    const news = await api.fixtures.aBroadcast(healthy.channel.id, { subject: 'Hello {{ subscriber.first_name }}', body: 'Hi' });
    const preview = (token: string, id: number, email: string) =>
      request(api.app).post(`/api/v1/broadcasts/${id}/preview`).set('Authorization', `Bearer ${token}`).send({ email });

    // Three hostile previews at once, then the healthy tenant's requests, one after another,
    // until every hostile one is answered: each of them is timed.
    let answered = 0;
    const attacks = [1, 2, 3].map(() =>
      preview(hostile.token, attack.id, 'mallory@example.com').then((res) => {
        answered++;
        return res;
      }),
    );
    const latencies: number[] = [];
    do {
      const started = Date.now();
      const [health, other] = await Promise.all([request(api.app).get('/healthz'), preview(healthy.token, news.id, 'ann@example.com')]);
      latencies.push(Date.now() - started);
      expect(health.status).toBe(200);
      expect([other.status, other.body.subject]).toEqual([200, 'Hello Ann']);
    } while (answered < attacks.length);

    console.log(`healthy tenant's latency during the hostile previews (ms): ${latencies.join(', ')}`);
    for (const ms of latencies) expect(ms).toBeLessThan(1_000);
    for (const res of await Promise.all(attacks)) {
      expect([res.status, res.body]).toEqual([422, { error: 'Broadcast cannot be rendered: the render took longer than 300 ms' }]);
    }
  }, 120_000);
});
