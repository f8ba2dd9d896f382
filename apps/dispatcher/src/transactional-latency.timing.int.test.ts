import { eventually } from '@mailcast/testkit';
import { useSendingHarness } from './test-support/sending-harness';

const RECIPIENTS = 20_000;
const PROBES = 5;

/**
 * Transactional email goes ahead of broadcast traffic (docs/transactionals.md): its own queue,
 * fetched at once on a NOTIFY, and its own SMTP connections.
 */
describe('a transactional during a 20,000-recipient broadcast', () => {
  const h = useSendingHarness();
  beforeAll(async () => {
    await h.api.database.db.raw(
      `INSERT INTO subscribers (channel_id, email, first_name) SELECT ?, 'r' || g || '@bulk.example', 'R' || g FROM generate_series(1, ?) g`,
      [h.channelId, RECIPIENTS],
    );
  }, 60_000);

  const bulk = () => h.smtp.messages.filter((m) => m.to[0]!.endsWith('@bulk.example')).length;

  it('reaches the SMTP server within 1 s of the 201, before the broadcast has finished', async () => {
    const created = await h.request('POST', '/api/v1/broadcasts', { broadcast: { name: 'Big', subject: 'News {{ subscriber.first_name }}', body: 'Hello' } });
    expect((await h.request('POST', `/api/v1/broadcasts/${created.body.id}/send_broadcast`)).status).toBe(200);
    await eventually(async () => (bulk() >= 1_000 ? true : undefined), 60_000, 10);

    const latencies: number[] = [];
    for (let i = 0; i < PROBES; i++) {
      const to = `probe${i}@example.com`;
      const res = await h.request('POST', '/api/v1/transactionals.json', { to, subject: 'Your code', body: 'Code 1234' });
      const answeredAt = Date.now();
      expect(res.status).toBe(201);
      const received = await eventually(async () => h.received(to)[0], 10_000, 5);
      latencies.push(received.receivedAt.getTime() - answeredAt);
    }
    const status = await eventually(
      async () => {
        const b = await h.request('GET', `/api/v1/broadcasts/${created.body.id}`);
        return ['sent', 'partial_failure', 'failed'].includes(b.body.status) ? b.body.status : undefined;
      },
      240_000,
      200,
    );
    expect(status).toBe('sent');
    expect(bulk()).toBe(RECIPIENTS);
    // Each probe arrived while the broadcast was still going out: bulk messages came after it.
    const lastBulk = h.smtp.messages.findLastIndex((m) => m.to[0]!.endsWith('@bulk.example'));
    for (let i = 0; i < PROBES; i++) expect(h.smtp.messages.findIndex((m) => m.to.includes(`probe${i}@example.com`))).toBeLessThan(lastBulk);
    console.log(`transactional latency during the broadcast (ms): ${latencies.join(', ')}`);
    for (const ms of latencies) expect(ms).toBeLessThan(1_000);
  }, 300_000);
});
