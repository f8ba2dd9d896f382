import request from 'supertest';
import { useApi } from '../../test-support/harness';

describe('broadcast reads and channel isolation (spec: Broadcasts List / Get)', () => {
  const api = useApi();
  let mine: { channelId: number; token: string };
  let theirs: { channelId: number; token: string };
  const ids: number[] = [];
  let theirBroadcastId: number;

  beforeAll(async () => {
    const a = await api.fixtures.aTenant();
    const b = await api.fixtures.aTenant();
    mine = { channelId: a.channel.id, token: a.token };
    theirs = { channelId: b.channel.id, token: b.token };
    // Created one second apart so "most recently created first" has one right answer.
    for (let i = 0; i < 30; i++) {
      const broadcast = await api.fixtures.aBroadcast(mine.channelId, { name: `n${i}` }, new Date(Date.UTC(2026, 0, 1, 0, 0, i)));
      ids.push(broadcast.id);
    }
    theirBroadcastId = (await api.fixtures.aBroadcast(theirs.channelId, { name: 'theirs' })).id;
  });

  const as = (token: string) => ({
    get: (path: string) => request(api.app).get(path).set('Authorization', `Bearer ${token}`),
  });

  it('returns the full broadcast object of the spec', async () => {
    const res = await as(mine.token).get(`/api/v1/broadcasts/${ids[0]}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: ids[0],
      name: 'n0',
      ab_test: null,
      subject: 'Hello {{ subscriber.first_name }}',
      preheader: null,
      body: 'Body',
      html_body: null,
      include_unsubscribe_link: true,
      reply_to: null,
      status: 'draft',
      track_opens: true,
      track_clicks: true,
      total_recipients: 0,
      broadcast_recipients_count: 0,
      percentage_complete: 0,
      scheduled_send_at: null,
      scheduled_timezone: null,
      sent_at: null,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      tags: [],
      segment_ids: [],
      topic_id: null,
      excluded_segment_ids: [],
      template_id: null,
      email_server_ids: [],
      use_any_email_server: false,
      email_headers: [],
      archive: false,
      send_in_subscriber_timezone: false,
      pause_reason: null,
    });
  });

  it("treats another channel's broadcast as nonexistent (404)", async () => {
    const res = await as(mine.token).get(`/api/v1/broadcasts/${theirBroadcastId}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Broadcast not found' });
    expect((await as(theirs.token).get(`/api/v1/broadcasts/${theirBroadcastId}`)).status).toBe(200);
    expect((await as(theirs.token).get(`/api/v1/broadcasts/${ids[0]}`)).status).toBe(404);
  });

  it("lists only the caller's channel", async () => {
    const res = await as(theirs.token).get('/api/v1/broadcasts');
    expect(res.body.total).toBe(1);
    expect(res.body.data.map((b: { id: number }) => b.id)).toEqual([theirBroadcastId]);
  });

  it('lists most recently created first, 25 by default', async () => {
    const res = await as(mine.token).get('/api/v1/broadcasts');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(30);
    expect(res.body.data.map((b: { id: number }) => b.id)).toEqual([...ids].reverse().slice(0, 25));
  });

  it('pages with limit and offset', async () => {
    const res = await as(mine.token).get('/api/v1/broadcasts?limit=5&offset=27');
    expect(res.body.data.map((b: { id: number }) => b.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(res.body.total).toBe(30);
    const past = await as(mine.token).get('/api/v1/broadcasts?offset=1000');
    expect(past.body).toEqual({ data: [], total: 30 });
  });

  it('clamps a limit above 100 to 100', async () => {
    for (let i = 0; i < 75; i++) await api.fixtures.aBroadcast(mine.channelId);
    const res = await as(mine.token).get('/api/v1/broadcasts?limit=1000');
    expect(res.body.total).toBe(105);
    expect(res.body.data).toHaveLength(100);
  });

  it.each([
    ['limit=-1', 'limit must be a non-negative integer'],
    ['limit=abc', 'limit must be a non-negative integer'],
    ['limit=2.5', 'limit must be a non-negative integer'],
    ['offset=-3', 'offset must be a non-negative integer'],
    ['offset=x', 'offset must be a non-negative integer'],
    ['limit=1&limit=2', 'limit must be a non-negative integer'],
  ])('answers %s with 422 {error}', async (query, message) => {
    const res = await as(mine.token).get(`/api/v1/broadcasts?${query}`);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: message });
  });

  it.each(['0', 'abc', '-1', '1.5', '99999999999999999999', '1e3', '%00'])('answers the id %s with 404, never 500', async (id) => {
    const res = await as(mine.token).get(`/api/v1/broadcasts/${id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Broadcast not found' });
  });
});
