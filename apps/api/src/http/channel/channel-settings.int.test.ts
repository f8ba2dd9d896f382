import request from 'supertest';
import { expectResponseMatchesDocument } from '../../openapi/test-support/match-document';
import { useApi } from '../../test-support/harness';

/** The channel settings API (docs/reputation-guard.md): the guard's limits and the channel's sender. */
describe('channel settings API', () => {
  const api = useApi({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  const as = (token: string) => ({
    get: () => request(api.app).get('/api/v1/channel/settings').set('Authorization', `Bearer ${token}`),
    patch: (body: unknown) =>
      request(api.app)
        .patch('/api/v1/channel/settings')
        .set('Authorization', `Bearer ${token}`)
        .send(body as object),
  });
  const DEFAULTS = { enabled: true, min_sent: 500, max_hard_bounce_rate: 5, max_complaint_rate: 0.1 };

  it('answers the defaults and the channel sender; a write merges the given keys, flat or under settings', async () => {
    const channel = await api.fixtures.aChannel({ name: 'Acme', fromEmail: 'news@acme.example', fromName: 'Acme News' });
    const token = await api.fixtures.aToken(channel.id, ['channel_settings_read', 'channel_settings_write']);
    const read = await as(token).get();
    expect(read.status).toBe(200);
    expectResponseMatchesDocument(read);
    expect(read.body).toEqual({ reputation_guard: DEFAULTS, sender_email: 'news@acme.example', sender_name: 'Acme News' });

    const nested = await as(token).patch({ settings: { reputation_guard: { min_sent: 50, max_complaint_rate: 0.5 }, sender_name: 'Acme Weekly' } });
    expect(nested.status).toBe(200);
    expectResponseMatchesDocument(nested);
    expect(nested.body).toEqual({
      reputation_guard: { ...DEFAULTS, min_sent: 50, max_complaint_rate: 0.5 },
      sender_email: 'news@acme.example',
      sender_name: 'Acme Weekly',
    });
    const flat = await as(token).patch({ reputation_guard: { enabled: false }, sender_email: 'hello@acme.example' });
    expect(flat.body).toEqual({
      reputation_guard: { enabled: false, min_sent: 50, max_hard_bounce_rate: 5, max_complaint_rate: 0.5 },
      sender_email: 'hello@acme.example',
      sender_name: 'Acme Weekly',
    });
    // Stored: only the keys written, so a later default reaches what the channel never set.
    const row = await api.database.db('channels').where({ id: channel.id }).first('reputation_guard', 'from_email', 'from_name');
    expect(row).toEqual({
      reputation_guard: { min_sent: 50, max_complaint_rate: 0.5, enabled: false },
      from_email: 'hello@acme.example',
      from_name: 'Acme Weekly',
    });
    // An empty sender clears it.
    expect((await as(token).patch({ sender_email: '', sender_name: null })).body).toMatchObject({ sender_email: null, sender_name: null });
    expect((await as(token).get()).body).toMatchObject({ sender_email: null, sender_name: null });
  });

  it('refuses bad values with 422 {error} naming each, and writes nothing', async () => {
    const { channel, token } = await api.fixtures.aTenant();
    const before = await api.database.db('channels').where({ id: channel.id }).first('reputation_guard', 'from_email', 'from_name');
    const cases: Array<[unknown, string[]]> = [
      [{ reputation_guard: { min_sent: 0 } }, ['reputation_guard.min_sent must be an integer of at least 1']],
      [{ reputation_guard: { max_hard_bounce_rate: 100.5 } }, ['reputation_guard.max_hard_bounce_rate must be a number from 0 to 100']],
      [{ reputation_guard: { max_complaint_rate: -1 } }, ['reputation_guard.max_complaint_rate must be a number from 0 to 100']],
      [{ reputation_guard: { max_complaint_rate: '0.2' } }, ['reputation_guard.max_complaint_rate must be a number from 0 to 100']],
      [{ reputation_guard: { enabled: 'true' } }, ['reputation_guard.enabled must be a boolean']],
      [{ reputation_guard: 'on' }, ['reputation_guard must be an object']],
      [{ sender_email: 'not an address', reputation_guard: { min_sent: 10 } }, ['sender_email is not a valid email address']],
      [{ sender_name: 42 }, ['sender_name must be a string']],
      [
        { reputation_guard: { min_sent: 2.5, max_hard_bounce_rate: 'x' }, sender_email: 'a@' },
        [
          'reputation_guard.min_sent must be an integer of at least 1',
          'reputation_guard.max_hard_bounce_rate must be a number from 0 to 100',
          'sender_email is not a valid email address',
        ],
      ],
    ];
    for (const [body, messages] of cases) {
      const res = await as(token).patch(body);
      expect([body, res.status]).toEqual([body, 422]);
      expectResponseMatchesDocument(res);
      expect(res.body).toEqual({ error: messages.join(', ') });
    }
    expect(await api.database.db('channels').where({ id: channel.id }).first('reputation_guard', 'from_email', 'from_name')).toEqual(before);
  });

  it('answers unknown attributes with warnings, and still writes', async () => {
    const { token } = await api.fixtures.aTenant();
    const res = await as(token).patch({ settings: { reputation_guard: { min_sent: 7, hourly: true }, colour: 'red' } });
    expect(res.status).toBe(200);
    expectResponseMatchesDocument(res);
    expect(res.body.reputation_guard.min_sent).toBe(7);
    expect(res.body.warnings.map((w: { code: string; param: string }) => [w.code, w.param])).toEqual([
      ['unrecognized_parameter', 'colour'],
      ['unrecognized_parameter', 'reputation_guard.hourly'],
    ]);
  });

  it('needs channel_settings_read to read and channel_settings_write to write (401 otherwise)', async () => {
    const channel = await api.fixtures.aChannel();
    const reader = await api.fixtures.aToken(channel.id, ['channel_settings_read']);
    const none = await api.fixtures.aToken(channel.id, ['broadcasts_read', 'broadcasts_write']);
    expect((await as(none).get()).status).toBe(401);
    expect((await as(none).patch({ reputation_guard: { min_sent: 1 } })).body).toEqual({ error: 'Unauthorized' });
    expect((await as(reader).get()).status).toBe(200);
    expect((await as(reader).patch({ reputation_guard: { min_sent: 1 } })).status).toBe(401);
    expect((await as(reader).get()).body.reputation_guard.min_sent).toBe(500);
  });

  it("keeps channels apart: a token reads and writes its own channel's settings only; an admin token names the channel", async () => {
    const mine = await api.fixtures.aTenant();
    const other = await api.fixtures.aTenant();
    expect((await as(mine.token).patch({ reputation_guard: { min_sent: 11 } })).status).toBe(200);
    expect((await as(other.token).get()).body.reputation_guard.min_sent).toBe(500);
    // broadcast_channel_id never moves a channel token to another channel (docs/auth.md).
    const moved = await request(api.app)
      .patch(`/api/v1/channel/settings?broadcast_channel_id=${other.channel.id}`)
      .set('Authorization', `Bearer ${mine.token}`)
      .send({ reputation_guard: { min_sent: 12 } });
    expect(moved.body.reputation_guard.min_sent).toBe(12);
    expect((await as(other.token).get()).body.reputation_guard.min_sent).toBe(500);

    const admin = await api.fixtures.anAdminToken();
    const missing = await request(api.app).get('/api/v1/channel/settings').set('Authorization', `Bearer ${admin}`);
    expect(missing.status).toBe(422);
    const named = await request(api.app)
      .patch('/api/v1/channel/settings')
      .set('Authorization', `Bearer ${admin}`)
      .send({ broadcast_channel_id: other.channel.id, reputation_guard: { max_hard_bounce_rate: 2 } });
    expect(named.status).toBe(200);
    expect(named.body.warnings).toBeUndefined();
    expect((await as(other.token).get()).body.reputation_guard).toEqual({ ...DEFAULTS, max_hard_bounce_rate: 2 });
    expect((await as(mine.token).get()).body.reputation_guard).toEqual({ ...DEFAULTS, min_sent: 12 });
  });
});
