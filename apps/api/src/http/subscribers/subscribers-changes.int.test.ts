import request from 'supertest';
import { useApi } from '../../test-support/harness';

/**
 * docs/write-path.md, "Subscriber changes": updates and tag changes save without a lock when the
 * row has not moved on, else under the lock. Parallel changes of one subscriber lose none.
 */
describe('subscriber changes in parallel', () => {
  const api = useApi();
  let channelId: number;
  let token: string;

  beforeAll(async () => {
    const tenant = await api.fixtures.aTenant();
    channelId = tenant.channel.id;
    token = tenant.token;
  });

  const send = (method: 'post' | 'patch' | 'delete', path: string, body: object) =>
    request(api.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${token}`).send(body);
  const eventsFor = async (subscriberId: number) =>
    (await api.database
      .db('events')
      .where({ channel_id: channelId })
      .whereRaw(`(data->>'subscriber_id')::bigint = ?`, [subscriberId])
      .orderBy('id')
      .select('type', 'data')) as Array<{
      type: string;
      data: Record<string, unknown>;
    }>;

  it('20 parallel add_tag calls keep all 20 tags, with one subscriber.updated each', async () => {
    const created = await send('post', '/subscribers.json', { subscriber: { email: 'tags@example.com', tags: ['start'] } });
    expect(created.status).toBe(201);
    const tags = Array.from({ length: 20 }, (_, i) => `t${i}`);
    const responses = await Promise.all(tags.map((tag) => send('post', '/subscribers/add_tag.json', { email: 'tags@example.com', tags: [tag] })));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const stored = await api.database.db('subscribers').where({ id: created.body.id }).first('tags');
    expect([...stored.tags].sort()).toEqual(['start', ...tags].sort());
    const types = (await eventsFor(created.body.id)).map((e) => e.type);
    expect(types).toEqual(['subscriber.created', ...Array(20).fill('subscriber.updated')]);
  });

  it('parallel updates and tag removals of one subscriber: each applied on the latest row', async () => {
    const created = await send('post', '/subscribers.json', { subscriber: { email: 'mixed@example.com', tags: ['a', 'b', 'c', 'd'] } });
    const responses = await Promise.all([
      ...['a', 'b', 'c'].map((tag) => send('delete', '/subscribers/remove_tag.json', { email: 'mixed@example.com', tags: [tag] })),
      ...Array.from({ length: 10 }, (_, i) => send('patch', '/subscribers.json', { email: 'mixed@example.com', subscriber: { last_name: `L${i}` } })),
    ]);
    expect(responses.map((r) => r.status)).toEqual(Array(13).fill(200));
    const stored = await api.database.db('subscribers').where({ id: created.body.id }).first('tags', 'last_name');
    expect(stored.tags).toEqual(['d']);
    const events = await eventsFor(created.body.id);
    expect(events).toHaveLength(14);
    // The last event carries the row as it was finally stored.
    expect(events[13]!.data).toMatchObject({ subscriber_id: created.body.id, last_name: stored.last_name });
  });

  it('a PATCH answers the stored row, and its event carries the same values', async () => {
    const created = await send('post', '/subscribers.json', { subscriber: { email: 'one@example.com', first_name: 'One' } });
    const res = await send('patch', '/subscribers.json', { email: 'one@example.com', subscriber: { first_name: 'Uno', custom_data: { k: 'v' } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.body.id, first_name: 'Uno', custom_data: { k: 'v' } });
    const [, updated] = await eventsFor(created.body.id);
    expect(updated).toEqual({
      type: 'subscriber.updated',
      data: {
        subscriber_id: created.body.id,
        email: 'one@example.com',
        first_name: 'Uno',
        last_name: null,
        subscribed_at: res.body.subscribed_at,
        unsubscribed_at: null,
        is_active: true,
        custom_data: { k: 'v' },
        source: 'api_subscription',
      },
    });
  });
});
