import { parseEmail } from '@mailcast/devkit';
import { eventually, HOSTILE_LIQUID } from '@mailcast/testkit';
import { useSendingHarness } from './test-support/sending-harness';

/**
 * Issue 34, finding 1: Liquid that stays inside one `{{ }}` for seconds, as a transactional (or a
 * confirmation template), held the dispatcher's event loop, so another channel's transactional
 * took 46.9 s instead of 0.26 s. Channel Liquid now renders on a templates thread stopped past
 * MAILCAST_TEMPLATE_TIME_LIMIT_MS (300 ms here, the default), channels in turn
 * (docs/templates.md "Rendering").
 */
describe('hostile Liquid in the dispatcher', () => {
  const h = useSendingHarness();
  let healthyToken: string;

  beforeAll(async () => {
    const healthy = await h.api.fixtures.aTenant();
    healthyToken = healthy.token;
    await h.api.fixtures.aCaptureServer(healthy.channel.id, h.smtp.port, { fromEmail: 'shop@healthy.example', fromName: 'Healthy' });
  });

  /** Waits until a job of `queue` is being worked: the hostile channel's renders are under way. */
  const working = (queue: string) =>
    eventually(
      async () => {
        const { rows } = await h.api.database.db.raw(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = ? AND state = 'active'`, [queue]);
        return (rows[0] as { n: number }).n > 0 ? true : undefined;
      },
      10_000,
      5,
    );

  /** The healthy channel's transactional: milliseconds from the request to the SMTP server's receipt. */
  async function healthyTransactional(to: string): Promise<number> {
    const started = Date.now();
    const res = await h.request(
      'POST',
      '/api/v1/transactionals.json',
      { to, subject: 'Your code', body: 'Code 1234' },
      { authorization: `Bearer ${healthyToken}` },
    );
    expect(res.status).toBe(201);
    const received = await eventually(async () => h.received(to)[0], 120_000, 5);
    return received.receivedAt.getTime() - started;
  }

  it("fails the hostile channel's transactionals past the time limit, and delivers another channel's within 1 s", async () => {
    const attacks: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await h.sendTransactional({ to: `target${i}@example.com`, subject: 'Hi', body: HOSTILE_LIQUID });
      expect(res.status).toBe(201);
      attacks.push(res.body.id as number);
    }
    await working('transactionals.send');

    const latency = await healthyTransactional('customer@example.com');
    console.log(`healthy channel's transactional during the attack: ${latency} ms`);
    expect(latency).toBeLessThan(1_000);
    for (const id of attacks) {
      expect(await h.transactionalOutcome(id, 60_000)).toMatchObject({ status: 'failed', error: 'Rendering failed: the render took longer than 300 ms' });
    }
    expect(attacks.flatMap((_, i) => h.received(`target${i}@example.com`))).toEqual([]);
  }, 180_000);

  it("sends the built-in confirmation in place of a hostile template, and another channel's transactional within 1 s", async () => {
    await h.api.fixtures.repositories.confirmationTemplates.create({
      channelId: h.channelId,
      name: 'hostile',
      subject: 'Confirm',
      body: HOSTILE_LIQUID,
      isDefault: true,
    });
    const emails = [0, 1, 2].map((i) => `joiner${i}@example.com`);
    for (const email of emails) {
      expect((await h.request('POST', '/api/v1/subscribers.json', { subscriber: { email }, double_opt_in: true })).status).toBe(201);
    }
    await working('subscribers.confirmation');

    const latency = await healthyTransactional('buyer@example.com');
    console.log(`healthy channel's transactional during the confirmation attack: ${latency} ms`);
    expect(latency).toBeLessThan(1_000);
    // docs/subscribers.md: a stored template that does not render (here: past the time limit)
    // gives way to the built-in one, so each subscriber still gets a working link.
    for (const email of emails) {
      const mail = await parseEmail((await eventually(async () => h.received(email)[0], 60_000, 10)).raw);
      expect(mail.subject).toBe('Please confirm your subscription');
      expect(mail.text).toMatch(/\/confirm\/[A-Za-z0-9_-]{43}/);
    }
  }, 180_000);

  it('fails a hostile broadcast in about one render time limit, not one per recipient, saying why', async () => {
    await h.api.database.db.raw(
      `INSERT INTO subscribers (channel_id, email, first_name) SELECT ?, 'reader' || g || '@hostile.example', 'R' || g FROM generate_series(1, 30) g`,
      [h.channelId],
    );
    const started = Date.now();
    // h.broadcast waits until the broadcast has ended; MAILCAST_RENDER_TIME_LIMIT_MS is 2000 here.
    const { id, status } = await h.broadcast({ name: 'Hostile', subject: 'Hi', body: HOSTILE_LIQUID }, 120_000);
    const elapsed = Date.now() - started;
    expect(status).toBe('failed');
    const errors = await h.api.database.db('broadcast_recipients').where({ broadcast_id: id }).orderBy('failed_at').pluck('error');
    // The 30 readers, and the channel's subscribers made by the tests before this one.
    const { total_recipients: total } = await h.api.database.db('broadcasts').where({ id }).first('total_recipients');
    expect(total).toBeGreaterThanOrEqual(30);
    expect(errors).toHaveLength(total);
    expect(errors.filter((e: string) => e === 'Rendering failed: the render took longer than 2000 ms')).toHaveLength(1);
    expect(new Set(errors.filter((e: string) => e !== 'Rendering failed: the render took longer than 2000 ms'))).toEqual(
      new Set(["Rendering failed: not tried: an earlier recipient's render failed (the render took longer than 2000 ms)"]),
    );
    console.log(`hostile broadcast of 30 recipients ended after ${elapsed} ms`);
    // One time limit, the thread's replacement and the job's bookkeeping; not 30 time limits.
    expect(elapsed).toBeLessThan(10_000);
  }, 180_000);
});
