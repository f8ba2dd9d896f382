import { ROLE_FLAGS } from '@mailcast/domain';
import request from 'supertest';
import { documentedOperations } from '../../openapi/test-support/match-document';
import { useApi } from '../../test-support/harness';
import { aUser, signIn, type SignedInSession } from '../../test-support/users';

/**
 * docs/teams.md, Using the API signed in: /api/v1 without a token runs as the signed-in
 * user, with the permissions their flags grant in the channel they act for, and the CSRF token on
 * every state-changing request.
 */
describe('/api/v1 with a dashboard session', () => {
  const api = useApi({ env: { RATE_LIMIT_PER_MINUTE: '1000', AUTH_FAILURES_PER_MINUTE: '1000' } });
  const as = (s: SignedInSession) => ({
    get: (path: string) => request(api.app).get(path).set('Cookie', s.cookie),
    post: (path: string, csrf: string | null = s.csrf) => {
      const r = request(api.app).post(path).set('Cookie', s.cookie);
      return csrf === null ? r : r.set('X-CSRF-Token', csrf);
    },
  });

  it('a Viewer reads broadcasts but cannot create one (401, as the spec answers a missing permission)', async () => {
    const channel = await api.fixtures.aChannel();
    await api.fixtures.aBroadcast(channel.id);
    const viewer = await signIn(api.app, await aUser(api, { channels: [{ channelId: channel.id, role: 'Viewer' }] }));
    const list = await as(viewer).get('/api/v1/broadcasts');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(1);
    const create = await as(viewer)
      .post('/api/v1/broadcasts')
      .send({ broadcast: { subject: 'S' } });
    expect(create.status).toBe(401);
    expect(create.body).toEqual({ error: 'Unauthorized' });
    expect(await api.database.db('broadcasts').where({ channel_id: channel.id }).count('* as n')).toEqual([{ n: 1 }]);
  });

  it('the finer flags hold: writing broadcasts without broadcasts_send edits but never sends or schedules; enrolling needs sequences_subscribers', async () => {
    const channel = await api.fixtures.aChannel();
    const draft = await api.fixtures.aBroadcast(channel.id);
    const { broadcasts_send: _send, sequences_subscribers: _enrol, ...rest } = ROLE_FLAGS.Editor;
    const writer = await signIn(
      api.app,
      await aUser(api, { channels: [{ channelId: channel.id, permissions: { ...rest, broadcasts_send: false, sequences_subscribers: false } }] }),
    );
    const edit = await request(api.app)
      .patch(`/api/v1/broadcasts/${draft.id}`)
      .set('Cookie', writer.cookie)
      .set('X-CSRF-Token', writer.csrf)
      .send({ broadcast: { subject: 'Edited' } });
    expect(edit.status).toBe(200);
    for (const path of [`/api/v1/broadcasts/${draft.id}/send_broadcast`, `/api/v1/broadcasts/${draft.id}/schedule_broadcast`]) {
      const res = await as(writer)
        .post(path)
        .send({ scheduled_send_at: new Date(Date.now() + 86_400_000).toISOString() });
      expect([path, res.status, res.body]).toEqual([path, 401, { error: 'Unauthorized' }]);
    }
    expect((await api.database.db('broadcasts').where({ id: draft.id }).first()).status).toBe('draft');
    const sequence = await as(writer)
      .post('/api/v1/sequences')
      .send({ sequence: { label: 'Drip' } });
    expect(sequence.status).toBe(201);
    const enrol = await as(writer)
      .post(`/api/v1/sequences/${sequence.body.id}/add_subscriber`)
      .send({ subscriber: { email: 'a@example.com' } });
    expect(enrol.status).toBe(401);
  });

  it('an Editor creates in the channel it names with X-Mailcast-Channel or broadcast_channel_id, and defaults to its lowest-id channel', async () => {
    const first = await api.fixtures.aChannel({ name: 'First' });
    const second = await api.fixtures.aChannel({ name: 'Second' });
    const editor = await signIn(
      api.app,
      await aUser(api, {
        channels: [
          { channelId: second.id, role: 'Editor' },
          { channelId: first.id, role: 'Viewer' },
        ],
      }),
    );
    // Default: the lowest-id channel, where this user is a Viewer.
    expect(
      (
        await as(editor)
          .post('/api/v1/broadcasts')
          .send({ broadcast: { subject: 'S' } })
      ).status,
    ).toBe(401);
    const byHeader = await as(editor)
      .post('/api/v1/broadcasts')
      .set('X-Mailcast-Channel', String(second.id))
      .send({ broadcast: { subject: 'By header' } });
    expect(byHeader.status).toBe(201);
    const byParam = await as(editor)
      .post('/api/v1/broadcasts')
      .send({ broadcast_channel_id: second.id, broadcast: { subject: 'By param' } });
    expect(byParam.status).toBe(201);
    // The parameter is the principal's, not the route's: no unrecognized_parameter warning.
    expect(byParam.body.warnings).toBeUndefined();
    const rows = await api.database.db('broadcasts').whereIn('id', [byHeader.body.id, byParam.body.id]).select('channel_id');
    expect(rows.map((r) => Number(r.channel_id))).toEqual([second.id, second.id]);
    // Channel flags never open the users API (an installation-wide permission).
    expect((await as(editor).get('/api/v1/users').set('X-Mailcast-Channel', String(second.id))).status).toBe(401);
  });

  it('a channel the user has no permission row for: 403 No access to this channel, existing or not', async () => {
    const mine = await api.fixtures.aChannel();
    const other = await api.fixtures.aChannel();
    const s = await signIn(api.app, await aUser(api, { channels: [{ channelId: mine.id, role: 'Manager' }] }));
    for (const id of [other.id, 999_999]) {
      const res = await as(s).get('/api/v1/broadcasts').set('X-Mailcast-Channel', String(id));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'No access to this channel' });
    }
    expect((await as(s).get(`/api/v1/broadcasts?broadcast_channel_id=${other.id}`)).status).toBe(403);
    expect((await as(s).get('/api/v1/broadcasts').set('X-Mailcast-Channel', 'abc')).status).toBe(422);
  });

  it('a sudo user reaches every channel with every permission', async () => {
    const a = await api.fixtures.aChannel();
    const b = await api.fixtures.aChannel();
    await api.fixtures.aBroadcast(b.id);
    const sudo = await signIn(api.app, await aUser(api, { sudo: true }));
    const list = await as(sudo).get('/api/v1/broadcasts').set('X-Mailcast-Channel', String(b.id));
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(1);
    const created = await as(sudo)
      .post('/api/v1/broadcasts')
      .set('X-Mailcast-Channel', String(a.id))
      .send({ broadcast: { subject: 'S' } });
    expect(created.status).toBe(201);
    expect(Number((await api.database.db('broadcasts').where({ id: created.body.id }).first()).channel_id)).toBe(a.id);
    // What every channel shares is an admin's: a sudo user's too.
    expect((await as(sudo).post('/api/v1/global_suppressions.json').send({ email: 'gone@example.com' })).status).toBe(201);
    expect((await as(sudo).get('/api/v1/broadcasts').set('X-Mailcast-Channel', '999999')).status).toBe(404);
    const session = await as(sudo).get('/auth/session');
    const ids = session.body.channels.map((c: { id: number }) => c.id);
    expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(session.body.channels[0]).toMatchObject({ role: 'Manager', permissions: ROLE_FLAGS.Manager });
  });

  it('user_management adds users_read and users_write', async () => {
    const channel = await api.fixtures.aChannel();
    const s = await signIn(api.app, await aUser(api, { systemPermissions: { user_management: true }, channels: [{ channelId: channel.id, role: 'Viewer' }] }));
    expect((await as(s).get('/api/v1/users')).status).toBe(200);
    expect((await as(s).get('/api/v1/broadcasts')).status).toBe(200);
  });

  it('a bearer token comes first: with both, the request runs as the token', async () => {
    const mine = await api.fixtures.aChannel();
    const tenant = await api.fixtures.aTenant();
    const s = await signIn(api.app, await aUser(api, { channels: [{ channelId: mine.id, role: 'Viewer' }] }));
    const res = await request(api.app)
      .post('/api/v1/broadcasts')
      .set('Cookie', s.cookie)
      .set('Authorization', `Bearer ${tenant.token}`)
      .send({ broadcast: { subject: 'S' } });
    expect(res.status).toBe(201);
    expect(Number((await api.database.db('broadcasts').where({ id: res.body.id }).first()).channel_id)).toBe(tenant.channel.id);
  });

  it('a dead cookie is 401 Unauthorized on /api/v1, and does not make live sessions fail after it', async () => {
    const channel = await api.fixtures.aChannel();
    const s = await signIn(api.app, await aUser(api, { channels: [{ channelId: channel.id, role: 'Viewer' }] }));
    const dead = await request(api.app)
      .get('/api/v1/broadcasts')
      .set('Cookie', 'mailcast_session=' + 'B'.repeat(43));
    expect(dead.status).toBe(401);
    expect(dead.body).toEqual({ error: 'Unauthorized' });
    expect((await as(s).get('/api/v1/broadcasts')).status).toBe(200);
  });

  it('counts the rate limit per user: two sessions of one user share a window, another user has their own', async () => {
    const channel = await api.fixtures.aChannel();
    const user = await aUser(api, { channels: [{ channelId: channel.id, role: 'Viewer' }] });
    const one = await signIn(api.app, user);
    const two = await signIn(api.app, user);
    const other = await signIn(api.app, await aUser(api, { channels: [{ channelId: channel.id, role: 'Viewer' }] }));
    const remaining = async (s: SignedInSession) => Number((await as(s).get('/api/v1/broadcasts')).headers['x-ratelimit-remaining']);
    const a = await remaining(one);
    const b = await remaining(two);
    const c = await remaining(other);
    expect(b).toBe(a - 1);
    expect(c).toBeGreaterThan(b);
  });

  it('keys Idempotency-Key by the user: the same key replays the first answer', async () => {
    const channel = await api.fixtures.aChannel();
    await api.fixtures.aCaptureServer(channel.id, 9);
    const s = await signIn(api.app, await aUser(api, { channels: [{ channelId: channel.id, role: 'Manager' }] }));
    const send = () => as(s).post('/api/v1/transactionals.json').set('Idempotency-Key', 'k-1').send({ to: 'r@example.com', subject: 'S', body: 'B' });
    const first = await send();
    expect(first.status).toBe(201);
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(await api.database.db('transactionals').where({ channel_id: channel.id }).count('* as n')).toEqual([{ n: 1 }]);
  });

  describe('CSRF on every state-changing operation', () => {
    /** Every table's content, but the sessions (a use touches last_seen_at). */
    const snapshot = async (): Promise<Record<string, string>> => {
      const tables = (await api.database.db.raw(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'user_sessions' ORDER BY 1`))
        .rows as Array<{
        tablename: string;
      }>;
      const out: Record<string, string> = {};
      for (const { tablename } of tables) {
        const row = (await api.database.db.raw(`SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS h FROM "${tablename}" t`)).rows[0];
        out[tablename] = row.h;
      }
      return out;
    };

    const stateChanging = documentedOperations()
      .filter((op) => / \/(api\/v1|auth)\//.test(op) && !/^(GET|HEAD|OPTIONS) /.test(op))
      // The unauthenticated POSTs have no session to protect (their own rule is tested apart).
      .filter((op) => !['POST /auth/sign_in', 'POST /auth/password/forgot', 'POST /auth/password/reset'].includes(op));

    it('covers the writes of every area', () => {
      expect(stateChanging).toEqual(
        expect.arrayContaining([
          'POST /api/v1/broadcasts',
          'DELETE /api/v1/subscribers/remove_tag.json',
          'PATCH /api/v1/sequences/{id}',
          'POST /auth/sign_out',
        ]),
      );
      expect(stateChanging.length).toBeGreaterThan(40);
    });

    it('answers 403 without the token or with a wrong one, and writes nothing', async () => {
      const channel = await api.fixtures.aChannel();
      await api.fixtures.aBroadcast(channel.id);
      const sudo = await signIn(api.app, await aUser(api, { sudo: true }));
      const manager = await signIn(api.app, await aUser(api, { channels: [{ channelId: channel.id, role: 'Manager' }] }));
      const before = await snapshot();
      for (const op of stateChanging) {
        const [method, template] = op.split(' ') as [string, string];
        const path = template.replace(/\{[^}]+\}/g, '1');
        for (const s of [sudo, manager]) {
          for (const csrf of [undefined, 'wrong', s === sudo ? manager.csrf : sudo.csrf]) {
            let r = request(api.app)[method.toLowerCase() as 'post'](path).set('Cookie', s.cookie).set('X-Mailcast-Channel', String(channel.id));
            if (csrf !== undefined) r = r.set('X-CSRF-Token', csrf);
            const res = await r.send({ broadcast: { subject: 'S' }, email: 'x@example.com' });
            expect([op, csrf, res.status, res.body]).toEqual([op, csrf, 403, { error: 'CSRF token missing or invalid' }]);
          }
        }
      }
      expect(await snapshot()).toEqual(before);
      // The sessions are still live: nothing signed them out.
      expect((await as(sudo).get('/auth/session')).status).toBe(200);
    }, 300_000);
  });
});
