import { CreateWebhookEndpoint, type Principal } from '@mailcast/core';
import { PERMISSIONS } from '@mailcast/domain';
import { eventually } from '@mailcast/testkit';
import { useDispatcherHarness, useReceiver, type Receiver } from '../../dispatcher/src/test-support/webhook-harness';
import { runAdmin } from './test-support/run-admin';

/**
 * `subscribers purge` (docs/subscribers.md, "Purge"): batches, one event for the whole list
 * (delivered by a real dispatcher relay to a real receiver on loopback), other channels untouched.
 */
describe('admin CLI: subscribers purge', () => {
  const h = useDispatcherHarness({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  const receiver: Receiver = useReceiver();
  beforeAll(() => h.startWorkers());

  const db = () => h.database.db;
  const admin = (...argv: string[]) => runAdmin(h.database.url, argv);
  const countOf = async (channelId: number) => Number((await db()('subscribers').where({ channel_id: channelId }).count<{ count: string }[]>('id'))[0]!.count);
  const eventsOf = (channelId: number) => db()('events').where({ channel_id: channelId }).orderBy('id').select('type', 'data');
  const bodiesAt = (path: string) => receiver.on(path).map((r) => JSON.parse(r.raw.toString('utf8')) as { type: string; data: unknown });

  /** `n` subscribers in one statement, copied from one made through the repository. */
  async function subscribers(channelId: number, prefix: string, n: number): Promise<void> {
    const first = await h.fixtures.aSubscriber(channelId, `${prefix}0@example.test`);
    const columns = (
      await db().raw<{ rows: { column_name: string }[] }>(
        `SELECT column_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = 'subscribers' AND column_name NOT IN ('id', 'email') AND is_generated = 'NEVER'`,
      )
    ).rows.map((r) => `"${r.column_name}"`);
    await db().raw(
      `INSERT INTO subscribers (email, ${columns.join(', ')})
       SELECT ? || g || '@example.test', ${columns.map((c) => `s.${c}`).join(', ')} FROM subscribers s, generate_series(1, ?) g WHERE s.id = ?`,
      [prefix, n - 1, first.id],
    );
  }

  async function aChannelWithEndpoint(path: string): Promise<number> {
    const channel = await h.fixtures.aChannel();
    const caller: Principal = { tokenId: 0, channelId: channel.id, permissions: PERMISSIONS };
    await h.container.resolve(CreateWebhookEndpoint).execute(caller, {
      url: receiver.url(path),
      eventTypes: ['subscribers.purged', 'subscribers.purge_failed', 'subscriber.deleted'],
    });
    return channel.id;
  }

  it('refuses without --confirm, deleting nothing', async () => {
    const channelId = await aChannelWithEndpoint('/unconfirmed');
    await subscribers(channelId, 'keep', 3);
    const refused = await admin('subscribers', 'purge', '--channel', String(channelId), '--json');
    expect(refused.code).toBe(2);
    expect(refused.json.error).toContain('add --confirm to go ahead');
    expect(await countOf(channelId)).toBe(3);
    expect(await eventsOf(channelId)).toEqual([]);
    const unknown = await admin('subscribers', 'purge', '--channel', '999999', '--confirm', '--json');
    expect([unknown.code, unknown.json]).toEqual([1, { error: 'Channel not found' }]);
    const oversized = await admin('subscribers', 'purge', '--channel', String(channelId), '--confirm', '--batch-size', '10001');
    expect(oversized.code).toBe(2);
    expect(await countOf(channelId)).toBe(3);
  });

  it("deletes every subscriber of the channel in batches, emits one subscribers.purged, and leaves another channel's alone", async () => {
    const purged = await aChannelWithEndpoint('/purged');
    const other = await aChannelWithEndpoint('/other');
    await subscribers(purged, 'gone', 2_500);
    await subscribers(other, 'stays', 3);
    // A confirmation (ON DELETE CASCADE) hangs off one of them: it goes with its subscriber.
    const [victim] = await db()('subscribers').where({ channel_id: purged }).limit(1).select('id');
    await db()('subscriber_confirmations').insert({ channel_id: purged, subscriber_id: victim.id, token_hash: Buffer.alloc(32, 7) });

    const done = await admin('subscribers', 'purge', '--channel', String(purged), '--confirm', '--batch-size', '1000', '--json');
    expect([done.code, done.json]).toEqual([0, { broadcast_channel_id: purged, purged: 2_500 }]);
    expect(await countOf(purged)).toBe(0);
    expect(await countOf(other)).toBe(3);
    expect(await db()('subscriber_confirmations').where({ subscriber_id: victim.id })).toEqual([]);

    // One event for the list, none per row.
    expect(await eventsOf(purged)).toEqual([{ type: 'subscribers.purged', data: { broadcast_channel_id: purged, count: 2_500 } }]);
    const [delivered] = await eventually(async () => (bodiesAt('/purged').length > 0 ? bodiesAt('/purged') : undefined));
    expect(delivered).toMatchObject({ type: 'subscribers.purged', data: { broadcast_channel_id: purged, count: 2_500 } });
    expect(await eventsOf(other)).toEqual([]);
    expect(receiver.on('/other')).toEqual([]);

    // An empty list purges to zero, and says so.
    const again = await admin('subscribers', 'purge', '--channel', String(purged), '--confirm');
    expect([again.code, again.stdout.trim()]).toEqual([0, `purged channel ${purged}: 0 subscribers deleted`]);
  });

  it('emits subscribers.purge_failed with what was deleted so far when a batch fails, and exits 1', async () => {
    const channelId = await aChannelWithEndpoint('/failed');
    await subscribers(channelId, 'half', 350);
    // The third DELETE statement on subscribers fails: two batches of 100 are already committed.
    await db().raw('CREATE TABLE purge_test_statements (n int)');
    await db().raw(`CREATE FUNCTION purge_test_block() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO purge_test_statements VALUES (1);
        IF (SELECT count(*) FROM purge_test_statements) >= 3 THEN RAISE EXCEPTION 'purge blocked by the test'; END IF;
        RETURN NULL;
      END $$`);
    await db().raw('CREATE TRIGGER purge_test_block BEFORE DELETE ON subscribers FOR EACH STATEMENT EXECUTE FUNCTION purge_test_block()');
    try {
      const failed = await admin('subscribers', 'purge', '--channel', String(channelId), '--confirm', '--batch-size', '100', '--json');
      expect(failed.code).toBe(1);
      expect(failed.json.error).toMatch(/^Purge failed after deleting 200 subscribers: .*purge blocked by the test/);
    } finally {
      await db().raw('DROP TRIGGER purge_test_block ON subscribers');
      await db().raw('DROP FUNCTION purge_test_block()');
      await db().raw('DROP TABLE purge_test_statements');
    }
    expect(await countOf(channelId)).toBe(150);
    const events = await eventsOf(channelId);
    expect(events).toEqual([
      { type: 'subscribers.purge_failed', data: { broadcast_channel_id: channelId, count: 200, error: expect.stringContaining('purge blocked by the test') } },
    ]);
    const [delivered] = await eventually(async () => (bodiesAt('/failed').length > 0 ? bodiesAt('/failed') : undefined));
    expect(delivered).toMatchObject({ type: 'subscribers.purge_failed', data: { count: 200 } });

    // Run again, it finishes the job.
    const rest = await admin('subscribers', 'purge', '--channel', String(channelId), '--confirm', '--json');
    expect(rest.json).toEqual({ broadcast_channel_id: channelId, purged: 150 });
  });

  it('no foreign key to subscribers can block a purge (each cascades or sets null)', async () => {
    const { rows } = await db().raw<{ rows: { name: string; action: string }[] }>(
      `SELECT conrelid::regclass::text || '.' || conname AS name, confdeltype AS action
         FROM pg_constraint WHERE contype = 'f' AND confrelid = 'subscribers'::regclass`,
    );
    expect(rows.length).toBeGreaterThan(3);
    expect(rows.filter((r) => r.action !== 'c' && r.action !== 'n')).toEqual([]);
  });
});
