import { createTestDatabase, throwawaySecretBox, type TestDatabase } from '@mailcast/testkit';
import type { EmailEventRecord, OutcomeGroup } from '@mailcast/core';
import { PgRecipientStore } from './pg-recipient-store';

describe('PgRecipientStore.settleWithEvents: one statement per group commit', () => {
  let database: TestDatabase;
  let store: PgRecipientStore;
  let channelId: number;
  let broadcastId: number;
  let subscribers: number[];
  let recipients: number[];
  const at = new Date('2026-11-22T10:00:00Z');

  beforeAll(async () => {
    database = await createTestDatabase();
    store = new PgRecipientStore(database.db, throwawaySecretBox());
    const db = database.db;
    channelId = (await db('channels').insert({ name: 'c' }).returning('id'))[0].id;
    broadcastId = (
      await db('broadcasts').insert({ channel_id: channelId, subject: 's', status: 'sending', track_opens: false, track_clicks: false }).returning('id')
    )[0].id;
    subscribers = (
      await db('subscribers')
        .insert(['a', 'b', 'c'].map((n) => ({ channel_id: channelId, email: `${n}@example.com` })))
        .returning('id')
    ).map((r: { id: number }) => r.id);
    recipients = (
      await db('broadcast_recipients')
        .insert(subscribers.map((s, i) => ({ broadcast_id: broadcastId, subscriber_id: s, message_id: `<m${i}@t>`, status: 'claimed', claimed_by: 'w' })))
        .returning('id')
    ).map((r: { id: number }) => r.id);
    // The third was settled by another worker already: this group must leave it alone.
    await db('broadcast_recipients').where({ id: recipients[2] }).update({ status: 'sent', sent_at: at });
  });
  afterAll(() => database.drop());

  const group = (): OutcomeGroup => {
    const emailEvents: EmailEventRecord[] = recipients.flatMap((recipientId, i) => [
      { channelId, broadcastId, recipientId, subscriberId: subscribers[i]!, kind: 'processed', occurredAt: at },
      { channelId, broadcastId, recipientId, subscriberId: subscribers[i]!, kind: i === 1 ? 'delayed' : 'delivered', occurredAt: at },
    ]);
    return {
      settlements: [
        { id: recipients[1]!, settlement: { status: 'pending', nextAttemptAt: new Date(at.getTime() + 60_000), error: '451 later' } },
        { id: recipients[0]!, settlement: { status: 'sent', at } },
        { id: recipients[2]!, settlement: { status: 'sent', at } },
      ],
      emailEvents,
      outbox: recipients.flatMap((recipientId, i) =>
        ['email.sent', i === 1 ? 'email.delivery_delayed' : 'email.delivered'].map((type) => ({
          recipientId,
          event: { channelId, type: type as 'email.sent', data: { receipt_id: recipientId, type }, createdAt: at },
        })),
      ),
    };
  };

  it('settles the still-claimed recipients and records the events of those alone, outbox events in order', async () => {
    const settled = await store.settleWithEvents(group());

    expect([...settled].sort()).toEqual([recipients[0], recipients[1]].sort());
    const rows = await database.db('broadcast_recipients').whereIn('id', recipients).orderBy('id').select('status', 'sent_at', 'next_attempt_at', 'error');
    expect(rows).toEqual([
      { status: 'sent', sent_at: at, next_attempt_at: null, error: null },
      { status: 'pending', sent_at: null, next_attempt_at: new Date(at.getTime() + 60_000), error: '451 later' },
      { status: 'sent', sent_at: at, next_attempt_at: null, error: null },
    ]);
    const events = await database.db('email_events').where({ broadcast_id: broadcastId }).orderBy('id').select('recipient_id', 'type');
    expect(events).toEqual([
      { recipient_id: recipients[0], type: 'processed' },
      { recipient_id: recipients[0], type: 'delivered' },
      { recipient_id: recipients[1], type: 'processed' },
      { recipient_id: recipients[1], type: 'delayed' },
    ]);
    const outbox = await database.db('events').where({ channel_id: channelId }).orderBy('id').pluck('type');
    expect(outbox).toEqual(['email.sent', 'email.delivered', 'email.sent', 'email.delivery_delayed']);
    const delivered = await database.db('broadcast_statistics').where({ broadcast_id: broadcastId, counter: 'delivered' }).sum({ n: 'recipients' });
    expect(Number(delivered[0]!.n)).toBe(1);
  });

  it('settles nothing and records nothing a second time', async () => {
    const counts = async () => [await database.db('email_events').count({ n: '*' }), await database.db('events').count({ n: '*' })];
    const before = await counts();
    expect((await store.settleWithEvents(group())).size).toBe(0);
    expect(await counts()).toEqual(before);
  });
});
