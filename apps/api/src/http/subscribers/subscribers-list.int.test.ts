import request from 'supertest';
import { useApi } from '../../test-support/harness';

describe('subscriber list (spec: List query parameters, pagination)', () => {
  const api = useApi();
  let channelId: number;
  let token: string;

  const day = (d: number) => new Date(Date.UTC(2026, 0, d));

  beforeAll(async () => {
    const tenant = await api.fixtures.aTenant();
    channelId = tenant.channel.id;
    token = tenant.token;
    const f = api.fixtures;
    const alice = await f.aSubscriber(channelId, 'alice@alpha.com', { tags: ['a', 'b'], customData: { plan: 'pro', seats: 5, trial: false } }, day(1));
    await api.database
      .db('subscribers')
      .where({ id: alice.id })
      .update({ confirmed_at: day(5) });
    const bob = await f.aSubscriber(channelId, 'bob@beta.com', { source: 'import', tags: ['a'], customData: { plan: 'free', seats: '5' } }, day(2));
    await api.database.db('subscribers').where({ id: bob.id }).update({ is_active: false });
    await f.aSubscriber(channelId, 'carol@alpha-corp.com', { source: 'form', tags: ['b'], customData: { trial: true } }, day(3));
    await f.aSubscriber(channelId, 'dave_x@gamma.org', { customData: { seats: 5.5, nested: { k: 1 } } }, day(4));
    // Another channel's subscriber matches many filters but must never appear.
    const other = await f.aChannel();
    await f.aSubscriber(other.id, 'alice@alpha.com', { tags: ['a', 'b'], customData: { plan: 'pro' } }, day(1));
  });

  const list = (query: string, t = token) => request(api.app).get(`/api/v1/subscribers.json${query}`).set('Authorization', `Bearer ${t}`);
  const emails = async (query: string) => {
    const res = await list(query);
    expect(res.status).toBe(200);
    return (res.body.subscribers as Array<{ email: string }>).map((s) => s.email);
  };

  it('lists the channel newest first with broadcast_channel_id and the pagination object', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.body.broadcast_channel_id).toBe(channelId);
    expect(res.body.subscribers.map((s: { email: string }) => s.email)).toEqual([
      'dave_x@gamma.org',
      'carol@alpha-corp.com',
      'bob@beta.com',
      'alice@alpha.com',
    ]);
    expect(res.body.subscribers[3]).toMatchObject({ confirmation_status: 'confirmed', confirmed_at: day(5).toISOString() });
    expect(res.body.pagination).toEqual({ total: 4, count: 4, from: 1, to: 4, current: 1, total_pages: 1 });
  });

  it.each([
    ['?is_active=true', ['dave_x@gamma.org', 'carol@alpha-corp.com', 'alice@alpha.com']],
    ['?is_active=false', ['bob@beta.com']],
    ['?source=import', ['bob@beta.com']],
    ['?source=imp', []],
    ['?email=ALPHA', ['carol@alpha-corp.com', 'alice@alpha.com']],
    ['?email=alpha.com', ['alice@alpha.com']],
    ['?email=@', ['dave_x@gamma.org', 'carol@alpha-corp.com', 'bob@beta.com', 'alice@alpha.com']],
    ['?email=%25', []],
    ['?email=_x', ['dave_x@gamma.org']],
    ['?email=a_', []],
    ['?confirmation_status=confirmed', ['alice@alpha.com']],
    ['?confirmation_status=unconfirmed', ['dave_x@gamma.org', 'carol@alpha-corp.com', 'bob@beta.com']],
    ['?created_after=2026-01-02T00:00:00Z', ['dave_x@gamma.org', 'carol@alpha-corp.com', 'bob@beta.com']],
    ['?created_before=2026-01-03T00:00:00Z', ['carol@alpha-corp.com', 'bob@beta.com', 'alice@alpha.com']],
    ['?created_after=2026-01-02T00:00:00Z&created_before=2026-01-03T00:00:00Z', ['carol@alpha-corp.com', 'bob@beta.com']],
    ['?created_after=2026-01-02T01:00:00%2B01:00', ['dave_x@gamma.org', 'carol@alpha-corp.com', 'bob@beta.com']],
    ['?tags[]=a', ['bob@beta.com', 'alice@alpha.com']],
    ['?tags[]=a&tags[]=b', ['alice@alpha.com']],
    ['?tags=b', ['carol@alpha-corp.com', 'alice@alpha.com']],
    ['?tags[]=a&tags[]=zzz', []],
    ['?custom_data[plan]=pro', ['alice@alpha.com']],
    ['?custom_data[seats]=5', ['alice@alpha.com']],
    ['?custom_data[seats]=5.5', ['dave_x@gamma.org']],
    ['?custom_data[trial]=true', ['carol@alpha-corp.com']],
    ['?custom_data[trial]=false', ['alice@alpha.com']],
    ['?custom_data[plan]=pro&custom_data[seats]=5', ['alice@alpha.com']],
    ['?custom_data[plan]=free&custom_data[seats]=5', []],
    // With a fragment, tags and custom data are checked on the fragment's rows (repository comment).
    ['?email=alpha&tags[]=a', ['alice@alpha.com']],
    ['?email=alpha&custom_data[trial]=true', ['carol@alpha-corp.com']],
    ['?email=al&tags[]=a', ['alice@alpha.com']],
    [
      '?is_active=true&email=alpha&tags[]=b&custom_data[plan]=pro&created_after=2026-01-01T00:00:00Z&source=api_subscription&confirmation_status=confirmed',
      ['alice@alpha.com'],
    ],
  ])('%s', async (query, expected) => {
    expect(await emails(query)).toEqual(expected);
  });

  it.each([
    ['?is_active=yes', 'is_active must be true or false'],
    ['?confirmation_status=pending', 'confirmation_status must be confirmed or unconfirmed'],
    ['?page=0', 'page must be a positive integer'],
    ['?page=abc', 'page must be a positive integer'],
    ['?page=1&page=2', 'page must be a positive integer'],
    ['?custom_data=x', 'custom_data must be key=value pairs'],
    ['?custom_data[a][b]=1', 'custom_data must be key=value pairs'],
  ])('%s is a 422 naming the parameter', async (query, error) => {
    const res = await list(query);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error });
  });

  describe('pages of 250', () => {
    let pagedToken: string;
    let pagedChannelId: number;

    async function seed(count: number): Promise<void> {
      await api.database.db.raw(
        `INSERT INTO subscribers (channel_id, email, created_at)
         SELECT ?, 'p' || g || '@paged.test', TIMESTAMPTZ '2026-02-01' + g * INTERVAL '1 second'
         FROM generate_series(1, ?) g`,
        [pagedChannelId, count],
      );
    }

    beforeAll(async () => {
      const tenant = await api.fixtures.aTenant();
      pagedToken = tenant.token;
      pagedChannelId = tenant.channel.id;
    });

    const page = async (n?: number) => {
      const res = await list(n === undefined ? '' : `?page=${n}`, pagedToken);
      expect(res.status).toBe(200);
      return res.body as { subscribers: Array<{ email: string }>; pagination: Record<string, number> };
    };

    it('an empty list: no subscribers, zeros', async () => {
      expect(await page()).toEqual({
        broadcast_channel_id: pagedChannelId,
        subscribers: [],
        pagination: { total: 0, count: 0, from: 0, to: 0, current: 1, total_pages: 0 },
      });
    });

    it('an exact multiple (500): two full pages, the second is the last, a third is empty', async () => {
      await seed(500);
      const first = await page(1);
      const second = await page(2);
      const third = await page(3);
      expect(first.pagination).toEqual({ total: 500, count: 250, from: 1, to: 250, current: 1, total_pages: 2 });
      expect(second.pagination).toEqual({ total: 500, count: 250, from: 251, to: 500, current: 2, total_pages: 2 });
      expect(third.pagination).toEqual({ total: 500, count: 0, from: 0, to: 0, current: 3, total_pages: 2 });
      expect(third.subscribers).toEqual([]);
      expect(first.subscribers[0]!.email).toBe('p500@paged.test');
      expect(second.subscribers[249]!.email).toBe('p1@paged.test');
      const all = new Set([...first.subscribers, ...second.subscribers].map((s) => s.email));
      expect(all.size).toBe(500);
    });

    it('one more (501): a last page of one', async () => {
      await api.database.db.raw(`INSERT INTO subscribers (channel_id, email, created_at) VALUES (?, 'p0@paged.test', TIMESTAMPTZ '2026-01-01')`, [
        pagedChannelId,
      ]);
      const last = await page(3);
      expect(last.pagination).toEqual({ total: 501, count: 1, from: 501, to: 501, current: 3, total_pages: 3 });
      expect(last.subscribers.map((s) => s.email)).toEqual(['p0@paged.test']);
    });
  });
});
