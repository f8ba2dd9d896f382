import request from 'supertest';
import { useApi } from '../../test-support/harness';

/**
 * docs/topics.md, "The event": `subscriber.preferences_updated {subscriber, changes}` in the
 * outbox, in the transaction of the change, whenever a stored topic value changes, beside
 * `subscriber.updated`; nothing when no topic value changed.
 */
describe('subscriber.preferences_updated', () => {
  const api = useApi();
  let token: string;
  let channelId: number;
  let news: number;
  let vip: number;

  beforeAll(async () => {
    const tenant = await api.fixtures.aTenant();
    token = tenant.token;
    channelId = tenant.channel.id;
    const as = (body: object) => request(api.app).post('/api/v1/topics').set('Authorization', `Bearer ${token}`).send(body);
    vip = (await as({ name: 'VIP', tag_name: 'vip', position: 2 })).body.id;
    news = (await as({ name: 'News', custom_data_key: 'news', position: 1 })).body.id;
  });

  const send = (method: 'post' | 'patch' | 'delete', path: string, body: object) =>
    request(api.app)[method](path).set('Authorization', `Bearer ${token}`).send(body);
  /** The outbox events of the channel after `since`, oldest first. */
  const eventsAfter = async (since: number) =>
    (await api.database.db('events').where({ channel_id: channelId }).andWhere('id', '>', since).orderBy('id').select('id', 'type', 'data')) as Array<{
      id: number;
      type: string;
      data: Record<string, unknown>;
    }>;
  const lastId = async () => Number((await api.database.db('events').max<{ m: string }[]>({ m: 'id' }))[0]!.m ?? 0);
  const preferences = async (since: number) => (await eventsAfter(since)).filter((e) => e.type === 'subscriber.preferences_updated').map((e) => e.data);

  it('a new subscriber whose data holds values: from null, in topic order, with the subscriber', async () => {
    const since = await lastId();
    const created = await send('post', '/api/v1/subscribers.json', {
      subscriber: { email: 'pat@example.test', first_name: 'Pat', tags: ['vip'], custom_data: { news: 'true', plan: 'pro' } },
    });
    expect(created.status).toBe(201);
    expect((await eventsAfter(since)).map((e) => e.type)).toEqual(['subscriber.created', 'subscriber.preferences_updated']);
    expect(await preferences(since)).toEqual([
      {
        subscriber: {
          subscriber_id: created.body.id,
          email: 'pat@example.test',
          first_name: 'Pat',
          last_name: null,
          subscribed_at: created.body.subscribed_at,
          unsubscribed_at: null,
          is_active: true,
          custom_data: { news: 'true', plan: 'pro' },
          source: 'api_subscription',
        },
        changes: [
          { topic_id: news, from: null, to: true },
          { topic_id: vip, from: null, to: true },
        ],
      },
    ]);
    expect(created.body.topics).toEqual({ [news]: true, [vip]: true });
  });

  it('an update that changes a value (and one that does not), add_tag, remove_tag, create on an existing address', async () => {
    let since = await lastId();
    const updated = await send('patch', '/api/v1/subscribers.json', { email: 'pat@example.test', subscriber: { custom_data: { news: 0, plan: 'pro' } } });
    expect(updated.body.topics).toEqual({ [news]: false, [vip]: true });
    expect((await eventsAfter(since)).map((e) => e.type)).toEqual(['subscriber.updated', 'subscriber.preferences_updated']);
    expect((await preferences(since)).map((d) => d.changes)).toEqual([[{ topic_id: news, from: true, to: false }]]);

    since = await lastId();
    await send('patch', '/api/v1/subscribers.json', { email: 'pat@example.test', subscriber: { custom_data: { news: 'no', plan: 'team' }, first_name: 'P' } });
    expect((await eventsAfter(since)).map((e) => e.type)).toEqual(['subscriber.updated']);

    since = await lastId();
    expect((await send('delete', '/api/v1/subscribers/remove_tag.json', { email: 'pat@example.test', tags: ['vip'] })).body.topics).toEqual({
      [news]: false,
      [vip]: null,
    });
    expect((await preferences(since)).map((d) => d.changes)).toEqual([[{ topic_id: vip, from: true, to: null }]]);
    since = await lastId();
    await send('post', '/api/v1/subscribers/add_tag.json', { email: 'pat@example.test', tags: ['vip', 'other'] });
    expect((await preferences(since)).map((d) => d.changes)).toEqual([[{ topic_id: vip, from: null, to: true }]]);
    since = await lastId();
    await send('post', '/api/v1/subscribers/add_tag.json', { email: 'pat@example.test', tags: ['another'] });
    expect(await preferences(since)).toEqual([]);

    since = await lastId();
    const again = await send('post', '/api/v1/subscribers.json', { subscriber: { email: 'pat@example.test', custom_data: { news: 1 } } });
    expect(again.status).toBe(200);
    expect((await preferences(since)).map((d) => d.changes)).toEqual([[{ topic_id: news, from: false, to: true }]]);
  });

  it('a change that rolls back emits nothing; a redaction emits subscriber.deleted only', async () => {
    const since = await lastId();
    await expect(
      api.database.db.transaction(async (trx) => {
        await trx('subscribers').where({ channel_id: channelId, email: 'pat@example.test' }).update({ tags: [] });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await eventsAfter(since)).toEqual([]);
    await send('post', '/api/v1/subscribers/redact.json', { email: 'pat@example.test' });
    expect((await eventsAfter(since)).map((e) => e.type)).toEqual(['subscriber.deleted']);
  });

  it('one statement writing many rows (an import) emits one event per changed row', async () => {
    const since = await lastId();
    await api.database.db.raw(
      `INSERT INTO subscribers (channel_id, email, custom_data, tags, created_at, updated_at)
       SELECT ?, 'bulk' || g || '@example.test', jsonb_build_object('news', g % 2 = 0), '{}', now(), now() FROM generate_series(1, 50) g`,
      [channelId],
    );
    const data = await preferences(since);
    expect(data).toHaveLength(50);
    expect(data.filter((d) => (d.changes as Array<{ to: boolean }>)[0]!.to).length).toBe(25);
    // A channel without topics gets none.
    const other = await api.fixtures.aTenant();
    const before = await lastId();
    await api.fixtures.aSubscriber(other.channel.id, 'x@example.test', { customData: { news: true }, tags: ['vip'] });
    expect((await api.database.db('events').where('id', '>', before).andWhere({ type: 'subscriber.preferences_updated' })).length).toBe(0);
  });
});
