import { CreateSubscriber, CreateWebhookEndpoint } from '@mailcast/core';
import { eventually } from '@mailcast/testkit';
import { useDispatcherHarness, useReceiver } from './test-support/webhook-harness';

/**
 * docs/webhooks.md, "Waking the relay": an event committed through the transactor is announced
 * after its commit, and the relay claims it at once. Here the relay polls once a minute, so only
 * the wake can explain a delivery within seconds.
 */
describe('the outbox relay woken by the writer after its commit', () => {
  const h = useDispatcherHarness({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  const receiver = useReceiver();

  it('delivers events within seconds although the outbox is polled once a minute', async () => {
    const caller = await h.aPrincipal();
    await h.container.resolve(CreateWebhookEndpoint).execute(caller, { url: receiver.url('/woken'), eventTypes: ['subscriber.created'] });
    const record = (i: number) => h.record({ channelId: caller.channelId, type: 'subscriber.created', data: { i }, createdAt: new Date() });
    // Committed before the relay starts: its first poll, at once, takes it; then it sleeps a minute.
    await record(0);
    h.startWorkers({ relay: { idleMs: 60_000 } });
    await eventually(async () => (receiver.on('/woken').length === 1 ? true : undefined), 10_000, 10);
    // The listener is LISTENing (its connection's last statement) before anything is announced.
    await eventually(
      async () => {
        const { rows } = await h.database.db.raw(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'mailcast-dispatcher-listen' AND query LIKE 'LISTEN %'`,
        );
        return rows.length > 0 ? true : undefined;
      },
      10_000,
      10,
    );
    // One at a time, then two back to back (the second announced by the coalesced NOTIFY).
    await record(1);
    await eventually(async () => (receiver.on('/woken').length === 2 ? true : undefined), 10_000, 10);
    await Promise.all([record(2), record(3)]);
    await eventually(async () => (receiver.on('/woken').length === 4 ? true : undefined), 10_000, 10);
    const ids = receiver.on('/woken').map((r) => JSON.parse(r.raw.toString('utf8')).data.i as number);
    expect(ids.sort()).toEqual([0, 1, 2, 3]);
    // A subscriber create is one statement outside any transaction (docs/write-path.md): its
    // event wakes the relay all the same.
    await h.container.resolve(CreateSubscriber).execute(caller, { email: 'woken@example.com', fields: {}, doubleOptIn: null });
    await eventually(async () => (receiver.on('/woken').length === 5 ? true : undefined), 10_000, 10);
    expect(JSON.parse(receiver.on('/woken')[4]!.raw.toString('utf8')).data.email).toBe('woken@example.com');
  }, 30_000);
});
