import request from 'supertest';
import { useApi } from '../../test-support/harness';

describe('subscribers (spec: Subscribers, Subscriber state, Errors; docs/subscribers.md)', () => {
  const api = useApi();
  let channelId: number;
  let token: string;

  beforeAll(async () => {
    const tenant = await api.fixtures.aTenant();
    channelId = tenant.channel.id;
    token = tenant.token;
  });

  const auth = (t = token) => ({ Authorization: `Bearer ${t}` });
  const post = (path: string, body: unknown, t = token) =>
    request(api.app)
      .post(`/api/v1${path}`)
      .set(auth(t))
      .send(body as object);
  const get = (path: string, t = token) => request(api.app).get(`/api/v1${path}`).set(auth(t));
  const patch = (body: unknown, t = token) =>
    request(api.app)
      .patch('/api/v1/subscribers.json')
      .set(auth(t))
      .send(body as object);
  const del = (path: string, body: unknown, t = token) =>
    request(api.app)
      .delete(`/api/v1${path}`)
      .set(auth(t))
      .send(body as object);

  /** Outbox rows written since `afterId`, for one channel. */
  async function eventsSince(afterId: number, channel = channelId): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
    const rows = await api.database.db('events').where({ channel_id: channel }).andWhere('id', '>', afterId).orderBy('id').select('type', 'data');
    return rows as Array<{ type: string; data: Record<string, unknown> }>;
  }
  async function lastEventId(): Promise<number> {
    const row = await api.database.db('events').max<{ max: number | null }[]>('id as max').first();
    return Number(row?.max ?? 0);
  }

  describe('create', () => {
    it('creates a new subscriber: 201, the full object, address normalised, default source, subscriber.created', async () => {
      const mark = await lastEventId();
      const res = await post('/subscribers.json', {
        subscriber: {
          email: '  Ada.Lovelace@Example.COM ',
          first_name: 'Ada',
          last_name: 'Lovelace',
          ip_address: '203.0.113.9',
          tags: ['vip', 'beta', 'vip'],
          custom_data: { plan: 'pro', seats: 3 },
        },
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        email: 'ada.lovelace@example.com',
        first_name: 'Ada',
        last_name: 'Lovelace',
        ip_address: '203.0.113.9',
        is_active: true,
        source: 'api_subscription',
        subscribed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        unsubscribed_at: null,
        confirmed_at: null,
        confirmation_status: 'unconfirmed',
        created_at: res.body.subscribed_at,
        tags: ['vip', 'beta'],
        topics: {},
        custom_data: { plan: 'pro', seats: 3 },
      });
      expect(await eventsSince(mark)).toEqual([
        {
          type: 'subscriber.created',
          data: {
            subscriber_id: res.body.id,
            email: 'ada.lovelace@example.com',
            first_name: 'Ada',
            last_name: 'Lovelace',
            subscribed_at: res.body.subscribed_at,
            unsubscribed_at: null,
            is_active: true,
            custom_data: { plan: 'pro', seats: 3 },
            source: 'api_subscription',
          },
        },
      ]);
    });

    it('accepts a flat body, an explicit source and subscribed_at, and a reserved .test domain', async () => {
      const res = await post('/subscribers.json', {
        email: 'flat@example.test',
        source: 'form',
        subscribed_at: '2025-03-04T05:06:07Z',
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        email: 'flat@example.test',
        source: 'form',
        subscribed_at: '2025-03-04T05:06:07.000Z',
        tags: [],
        custom_data: {},
      });
    });

    it('on an existing address updates and reactivates it with 200, emitting updated and subscribed', async () => {
      await post('/subscribers.json', { subscriber: { email: 'again@example.com', first_name: 'Old', tags: ['a'] } });
      const unsubscribed = await post('/subscribers/unsubscribe.json', { email: 'again@example.com' });
      expect(unsubscribed.body).toMatchObject({ is_active: false, unsubscribed_at: expect.any(String) });
      const mark = await lastEventId();

      const res = await post('/subscribers.json', { subscriber: { email: 'AGAIN@example.com', first_name: 'New' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: unsubscribed.body.id,
        email: 'again@example.com',
        first_name: 'New',
        is_active: true,
        unsubscribed_at: null,
        tags: ['a'],
      });
      expect((await eventsSince(mark)).map((e) => [e.type, e.data.first_name, e.data.is_active])).toEqual([
        ['subscriber.updated', 'New', true],
        ['subscriber.subscribed', 'New', true],
      ]);
      expect(await api.database.db('subscribers').where({ channel_id: channelId, email: 'again@example.com' }).count('* as n')).toEqual([{ n: 1 }]);
    });

    it('on an active existing address emits only subscriber.updated', async () => {
      await post('/subscribers.json', { subscriber: { email: 'active-again@example.com' } });
      const mark = await lastEventId();
      const res = await post('/subscribers.json', { subscriber: { email: 'active-again@example.com', last_name: 'X' } });
      expect(res.status).toBe(200);
      expect((await eventsSince(mark)).map((e) => e.type)).toEqual(['subscriber.updated']);
    });

    it('refuses tag_list (docs/subscribers.md), nested or flat, and writes nothing', async () => {
      for (const body of [{ subscriber: { email: 'tl@example.com', tag_list: 'a,b' } }, { email: 'tl@example.com', tag_list: ['a'] }]) {
        const res = await post('/subscribers.json', body);
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ error: 'tag_list is not supported; use tags' });
      }
      expect((await get('/subscribers/find.json?email=tl@example.com')).status).toBe(404);
    });

    it.each([
      ['malformed', 'not-an-email', { email: ['is invalid'] }],
      ['no dotted domain', 'a@localhost', { email: ['is invalid'] }],
      ['two @', 'a@b@example.com', { email: ['is invalid'] }],
      ['inner space', 'a b@example.com', { email: ['is invalid'] }],
      ['too long', `${'a'.repeat(250)}@example.com`, { email: ['is invalid'] }],
    ])('rejects an invalid address (%s) with {errors: {email: [...]}}', async (_name, email, errors) => {
      const res = await post('/subscribers.json', { subscriber: { email } });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ errors });
    });

    it('reports every malformed field at once, keyed by field', async () => {
      const res = await post('/subscribers.json', {
        subscriber: { first_name: 5, tags: 'vip', custom_data: [1], subscribed_at: 'yesterday' },
      });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        errors: {
          email: ["can't be blank"],
          first_name: ['must be a string'],
          tags: ['must be an array of strings'],
          custom_data: ['must be an object'],
          subscribed_at: ['must be an ISO 8601 datetime'],
        },
      });
    });
  });

  describe('find by email (docs/subscribers.md: GET /subscribers/find.json?email=)', () => {
    it('matches the exact address case-insensitively', async () => {
      await post('/subscribers.json', { subscriber: { email: 'finder@example.com', first_name: 'Fi' } });
      const res = await get('/subscribers/find.json?email=%20FINDER@Example.com');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ email: 'finder@example.com', first_name: 'Fi' });
      expect((await get('/subscribers/find.json?email=finder@example.co')).status).toBe(404);
    });

    it('404 "Subscriber not found" for an unknown address; 422 without one', async () => {
      const res = await get('/subscribers/find.json?email=nobody@example.com');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Subscriber not found' });
      const missing = await get('/subscribers/find.json');
      expect(missing.status).toBe(422);
      expect(missing.body).toEqual({ error: 'email parameter is required' });
    });

    it("treats another channel's subscriber as nonexistent", async () => {
      const other = await api.fixtures.aTenant();
      await post('/subscribers.json', { subscriber: { email: 'theirs@example.com' } }, other.token);
      expect((await get('/subscribers/find.json?email=theirs@example.com')).status).toBe(404);
      expect((await post('/subscribers/deactivate.json', { email: 'theirs@example.com' })).status).toBe(404);
      expect((await get('/subscribers/find.json?email=theirs@example.com', other.token)).status).toBe(200);
    });
  });

  describe('update', () => {
    it('replaces tags and custom_data, keeps what is not given, emits subscriber.updated', async () => {
      await post('/subscribers.json', {
        subscriber: { email: 'upd@example.com', first_name: 'U', last_name: 'Keep', tags: ['x', 'y'], custom_data: { a: 1 } },
      });
      const mark = await lastEventId();
      const res = await patch({ subscriber: { email: 'UPD@example.com', first_name: 'V', tags: ['z'], custom_data: { b: true } } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ email: 'upd@example.com', first_name: 'V', last_name: 'Keep', tags: ['z'], custom_data: { b: true } });
      expect((await eventsSince(mark)).map((e) => [e.type, e.data.first_name])).toEqual([['subscriber.updated', 'V']]);
    });

    it('takes the target from a top-level email, so the nested one can change the address', async () => {
      await post('/subscribers.json', { subscriber: { email: 'move-from@example.com' } });
      const res = await patch({ email: 'move-from@example.com', subscriber: { email: 'Move-To@example.com', source: 'import' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ email: 'move-to@example.com', source: 'import' });
      expect((await get('/subscribers/find.json?email=move-from@example.com')).status).toBe(404);
    });

    it('refuses a new address that is invalid or already taken, keyed by email', async () => {
      await post('/subscribers.json', { subscriber: { email: 'taken-a@example.com' } });
      await post('/subscribers.json', { subscriber: { email: 'taken-b@example.com' } });
      const taken = await patch({ email: 'taken-a@example.com', subscriber: { email: 'taken-b@example.com' } });
      expect(taken.status).toBe(422);
      expect(taken.body).toEqual({ errors: { email: ['has already been taken'] } });
      const invalid = await patch({ email: 'taken-a@example.com', subscriber: { email: 'nope' } });
      expect(invalid.status).toBe(422);
      expect(invalid.body).toEqual({ errors: { email: ['is invalid'] } });
      expect((await get('/subscribers/find.json?email=taken-a@example.com')).status).toBe(200);
    });

    // Concurrent changes may share one statement (docs/write-path.md, "Writes in batches"): one
    // that takes an address already in use still gets its own 422, word for word, and the others 200.
    it('answers each of several concurrent updates on its own when one takes an address in use', async () => {
      // Whether the three meet in one turn depends on timing: five rounds make it all but certain.
      for (let round = 0; round < 5; round++) {
        const [a, b, c, taken] = ['a', 'b', 'c', 'taken'].map((x) => `many-${x}${round}@example.com`);
        for (const email of [a, b, c, taken]) await post('/subscribers.json', { subscriber: { email } });
        const answers = await Promise.all([
          patch({ email: a, subscriber: { first_name: 'A' } }),
          patch({ email: b, subscriber: { email: taken } }),
          patch({ email: c, subscriber: { first_name: 'C' } }),
        ]);
        expect(answers.map((r) => r.status)).toEqual([200, 422, 200]);
        expect(answers[1]!.body).toEqual({ errors: { email: ['has already been taken'] } });
        expect(answers[0]!.body).toMatchObject({ email: a, first_name: 'A' });
        expect(answers[2]!.body).toMatchObject({ email: c, first_name: 'C' });
        expect((await get(`/subscribers/find.json?email=${b}`)).body).toMatchObject({ email: b, first_name: null });
      }
    });

    it('404 for an unknown address, 422 without one, 422 for tag_list', async () => {
      const unknown = await patch({ subscriber: { email: 'ghost@example.com', first_name: 'G' } });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ error: 'Subscriber not found' });
      const missing = await patch({ subscriber: { first_name: 'G' } });
      expect(missing.status).toBe(422);
      expect(missing.body).toEqual({ errors: { email: ["can't be blank"] } });
      const tagList = await patch({ subscriber: { email: 'upd@example.com', tag_list: 'a' } });
      expect(tagList.body).toEqual({ error: 'tag_list is not supported; use tags' });
    });
  });

  describe('state changes (spec: Subscriber state)', () => {
    beforeAll(async () => {
      await post('/subscribers.json', { subscriber: { email: 'state@example.com', tags: ['one'] } });
    });

    it('deactivate / activate switch is_active and leave unsubscribed_at alone', async () => {
      const unsub = await post('/subscribers/unsubscribe.json', { email: 'state@example.com' });
      const at = unsub.body.unsubscribed_at as string;
      const mark = await lastEventId();
      const activated = await post('/subscribers/activate.json', { email: 'state@example.com' });
      expect(activated.status).toBe(200);
      expect(activated.body).toMatchObject({ is_active: true, unsubscribed_at: at });
      const deactivated = await post('/subscribers/deactivate.json', { email: 'STATE@example.com' });
      expect(deactivated.body).toMatchObject({ is_active: false, unsubscribed_at: at });
      expect((await eventsSince(mark)).map((e) => [e.type, e.data.is_active])).toEqual([
        ['subscriber.updated', true],
        ['subscriber.updated', false],
      ]);
    });

    it('unsubscribe sets unsubscribed_at; resubscribe clears it; each with its event', async () => {
      await post('/subscribers/activate.json', { email: 'state@example.com' });
      const mark = await lastEventId();
      const before = Date.now();
      const unsub = await post('/subscribers/unsubscribe.json', { email: 'state@example.com' });
      expect(unsub.status).toBe(200);
      expect(unsub.body.is_active).toBe(false);
      expect(Date.parse(unsub.body.unsubscribed_at)).toBeGreaterThanOrEqual(before - 1000);
      const resub = await post('/subscribers/resubscribe.json', { email: 'state@example.com' });
      expect(resub.body).toMatchObject({ is_active: true, unsubscribed_at: null });
      expect((await eventsSince(mark)).map((e) => [e.type, e.data.unsubscribed_at === null])).toEqual([
        ['subscriber.unsubscribed', false],
        ['subscriber.subscribed', true],
      ]);
    });

    it('add_tag merges, remove_tag removes (tags in a DELETE body), both emit subscriber.updated', async () => {
      const mark = await lastEventId();
      const added = await post('/subscribers/add_tag.json', { email: 'state@example.com', tags: ['two', 'one', 'three'] });
      expect(added.status).toBe(200);
      expect(added.body.tags).toEqual(['one', 'two', 'three']);
      const removed = await del('/subscribers/remove_tag.json', { email: 'state@example.com', tags: ['one', 'absent'] });
      expect(removed.status).toBe(200);
      expect(removed.body.tags).toEqual(['two', 'three']);
      expect((await eventsSince(mark)).map((e) => e.type)).toEqual(['subscriber.updated', 'subscriber.updated']);
    });

    it('remove_tag and add_tag without tags: 422 "tags parameter is required"', async () => {
      for (const res of [
        await del('/subscribers/remove_tag.json', { email: 'state@example.com' }),
        await del('/subscribers/remove_tag.json', { email: 'state@example.com', tags: [] }),
        await post('/subscribers/add_tag.json', { email: 'state@example.com' }),
      ]) {
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ error: 'tags parameter is required' });
      }
    });

    it.each([
      ['post', '/subscribers/deactivate.json'],
      ['post', '/subscribers/activate.json'],
      ['post', '/subscribers/unsubscribe.json'],
      ['post', '/subscribers/resubscribe.json'],
      ['post', '/subscribers/add_tag.json'],
      ['delete', '/subscribers/remove_tag.json'],
      ['post', '/subscribers/redact.json'],
    ])('%s %s: 404 "Subscriber not found" for an unknown address, 422 without one', async (method, path) => {
      const send = method === 'post' ? post : del;
      const unknown = await send(path, { email: 'ghost@example.com', tags: ['t'] });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ error: 'Subscriber not found' });
      const missing = await send(path, { tags: ['t'] });
      expect(missing.status).toBe(422);
      expect(missing.body).toEqual({ error: 'email parameter is required' });
    });
  });

  describe('redact (spec: Redact; docs/subscribers.md: redacted-<id>@redacted.invalid)', () => {
    it('removes every personal field, keeps the record, tags and recipient history, and is irreversible', async () => {
      const created = await post('/subscribers.json', {
        subscriber: { email: 'gdpr@example.com', first_name: 'G', last_name: 'D', ip_address: '198.51.100.1', tags: ['kept'], custom_data: { city: 'Oslo' } },
      });
      const id = created.body.id as number;
      const broadcast = await api.fixtures.aBroadcast(channelId);
      const [recipient] = await api.database
        .db('broadcast_recipients')
        .insert({ broadcast_id: broadcast.id, subscriber_id: id, status: 'sent', message_id: '<m1@example.com>' })
        .returning('id');
      await api.database
        .db('email_events')
        .insert({ channel_id: channelId, broadcast_id: broadcast.id, recipient_id: recipient.id, subscriber_id: id, type: 'opened' });
      const mark = await lastEventId();

      const res = await post('/subscribers/redact.json', { email: 'GDPR@example.com' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Subscriber redacted successfully' });

      const placeholder = `redacted-${id}@redacted.invalid`;
      const row = await api.database.db('subscribers').where({ id }).first();
      expect(row).toMatchObject({
        email: placeholder,
        first_name: null,
        last_name: null,
        ip_address: null,
        custom_data: {},
        tags: ['kept'],
        is_active: false,
        redacted_at: expect.any(Date),
      });
      expect(await api.database.db('broadcast_recipients').where({ subscriber_id: id }).count('* as n')).toEqual([{ n: 1 }]);
      expect(await api.database.db('email_events').where({ subscriber_id: id }).count('* as n')).toEqual([{ n: 1 }]);
      expect(await eventsSince(mark)).toEqual([
        {
          type: 'subscriber.deleted',
          data: expect.objectContaining({ subscriber_id: id, email: placeholder, first_name: null, last_name: null, custom_data: {}, is_active: false }),
        },
      ]);

      // The old address names no one now; the placeholder names the redacted record, which refuses changes.
      expect((await get('/subscribers/find.json?email=gdpr@example.com')).status).toBe(404);
      expect((await post('/subscribers/redact.json', { email: 'gdpr@example.com' })).status).toBe(404);
      const byPlaceholder = await get(`/subscribers/find.json?email=${placeholder}`);
      expect(byPlaceholder.status).toBe(200);
      expect(byPlaceholder.body).toMatchObject({ id, email: placeholder, first_name: null, ip_address: null, custom_data: {}, tags: ['kept'] });
      const again = await post('/subscribers/redact.json', { email: placeholder });
      expect(again.status).toBe(422);
      expect(again.body).toEqual({ error: 'Failed to redact subscriber: subscriber is already redacted' });
      const reactivate = await post('/subscribers/activate.json', { email: placeholder });
      expect(reactivate.status).toBe(422);
      expect(reactivate.body).toEqual({ error: 'Subscriber has been redacted' });
      const recreatePlaceholder = await post('/subscribers.json', { subscriber: { email: placeholder } });
      expect(recreatePlaceholder.status).toBe(422);
      expect(recreatePlaceholder.body).toEqual({ errors: { email: ['is invalid'] } });

      // A later create with the old address makes a new subscriber (docs/subscribers.md).
      const fresh = await post('/subscribers.json', { subscriber: { email: 'gdpr@example.com' } });
      expect(fresh.status).toBe(201);
      expect(fresh.body.id).not.toBe(id);
      expect(fresh.body.first_name).toBeNull();
    });
  });

  describe('permissions (docs/operations.md: subscribers_read / subscribers_write)', () => {
    it('a read-only token lists and finds but cannot write; a write-only token cannot read', async () => {
      const readOnly = await api.fixtures.aToken(channelId, ['subscribers_read']);
      const writeOnly = await api.fixtures.aToken(channelId, ['subscribers_write']);
      expect((await get('/subscribers.json', readOnly)).status).toBe(200);
      expect((await get('/subscribers/find.json?email=finder@example.com', readOnly)).status).toBe(200);
      for (const res of [
        await post('/subscribers.json', { subscriber: { email: 'ro@example.com' } }, readOnly),
        await patch({ subscriber: { email: 'finder@example.com' } }, readOnly),
        await post('/subscribers/unsubscribe.json', { email: 'finder@example.com' }, readOnly),
        await del('/subscribers/remove_tag.json', { email: 'finder@example.com', tags: ['x'] }, readOnly),
        await get('/subscribers.json', writeOnly),
        await get('/subscribers/find.json?email=finder@example.com', writeOnly),
      ]) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'Unauthorized' });
      }
      expect((await post('/subscribers.json', { subscriber: { email: 'wo@example.com' } }, writeOnly)).status).toBe(201);
    });

    it('refuses a request without a token', async () => {
      const res = await request(api.app).get('/api/v1/subscribers.json');
      expect(res.status).toBe(401);
    });
  });

  describe('concurrency', () => {
    it('20 parallel creates of one address make one subscriber: one 201, nineteen 200', async () => {
      const mark = await lastEventId();
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => post('/subscribers.json', { subscriber: { email: 'race@example.com', first_name: `R${i}` } })),
      );
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([...Array(19).fill(200), 201]);
      expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
      expect(await api.database.db('subscribers').where({ channel_id: channelId, email: 'race@example.com' }).count('* as n')).toEqual([{ n: 1 }]);
      const types = (await eventsSince(mark)).map((e) => e.type);
      expect(types.filter((t) => t === 'subscriber.created')).toHaveLength(1);
      expect(types.filter((t) => t === 'subscriber.updated')).toHaveLength(19);
    });
  });
});
