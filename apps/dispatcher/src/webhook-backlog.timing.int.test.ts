import { CreateWebhookEndpoint, DeleteWebhookEndpoint, Transactor } from '@mailcast/core';
import { eventually } from '@mailcast/testkit';
import { useDispatcherHarness, useReceiver } from './test-support/webhook-harness';

// A timing test (run alone, after the others): the healthy endpoint's 150 deliveries must land
// before the dead endpoint's first 3 s time-out, which a machine busy with other test files
// cannot promise.
describe('a dead endpoint with a deep backlog', () => {
  const h = useDispatcherHarness({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '3000' });
  const receiver = useReceiver((p) => (p === '/dead' ? 'hang' : { status: 200 }));

  it('holds a bounded number of its jobs, puts the rest back for later, and the healthy endpoint keeps flowing', async () => {
    const caller = await h.aPrincipal();
    const dead = await h.container
      .resolve(CreateWebhookEndpoint)
      .execute(caller, { url: receiver.url('/dead'), eventTypes: ['subscriber.created'], retriesToAttempt: 0 });
    await h.container.resolve(CreateWebhookEndpoint).execute(caller, { url: receiver.url('/ok'), eventTypes: ['subscriber.created'] });
    await h.container.resolve<Transactor>(Transactor).run(async (r) => {
      for (let i = 0; i < 150; i++) await r.outbox.record({ channelId: caller.channelId, type: 'subscriber.created', data: { i }, createdAt: new Date() });
    });
    const started = Date.now();
    h.startWorkers({ delivery: { perEndpointBacklog: 4, slowAfterMs: 200, fetchBatchSize: 40 } });
    const ok = await eventually(async () => (receiver.on('/ok').length === 150 ? receiver.on('/ok') : undefined), 10_000, 20);
    // Every healthy delivery lands before the dead endpoint's first time-out (3 s) could free a slot.
    expect(ok[149]!.at - started).toBeLessThan(3_000);
    expect(receiver.maxOpen('/dead')).toBe(8);
    const putBackJobs = async () =>
      (
        await h.database.db.raw(
          `SELECT count(DISTINCT data->>'deliveryId')::int AS n, array_agg(DISTINCT (data->>'attempt')::int) AS attempts
           FROM pgboss.job WHERE name = 'webhooks.deliver' AND (data->>'endpointId')::int = ?`,
          [dead.id],
        )
      ).rows[0] as { n: number; attempts: number[] | null };
    // Once its lane is slow (200 ms), all but its 8 POSTs and a backlog of 4 are put back as jobs
    // of the same first attempt; the healthy endpoint may well have finished before that.
    const putBack = await eventually(
      async () => {
        const found = await putBackJobs();
        return found.n > 0 ? found : undefined;
      },
      2_000,
      20,
    );
    expect(putBack).toEqual({ n: 150 - 8 - 4, attempts: [1] });
    const attempted = await h.database.db('webhook_deliveries').where({ webhook_endpoint_id: dead.id }).where('attempt_number', '>', 0);
    expect(attempted).toHaveLength(0); // nothing recorded yet: the first POSTs are still hanging
    await h.container.resolve(DeleteWebhookEndpoint).execute(caller, { id: dead.id });
  });
});
