import { EXPORT_COLLECTIONS, EXPORT_WEBHOOK_SECRET, hashApiToken, PERMISSIONS, PLATFORM, type ExportCollection } from '@mailcast/domain';
import request from 'supertest';
import { expectResponseMatchesDocument } from '../../openapi/test-support/match-document';
import { useApi } from '../../test-support/harness';

/**
 * The export API (docs/export.md): an admin token with migration_read reads one
 * channel, named by broadcast_channel_id, as a manifest and paged collections; secrets never show.
 */
describe('export API /api/migration/v1', () => {
  const api = useApi();
  const SMTP_PASSWORD = 'smtp-password-7f3a9c';
  const DKIM_KEY = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC-dkim-7f3a9c\n-----END PRIVATE KEY-----';
  const WEBHOOK_SECRET = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
  const PASSWORD_HASH = '$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$hash-7f3a9c';
  const TOTP_SECRET = 'mcs1.totp-secret-7f3a9c';
  let admin: string;
  let adminWithoutMigration: string;
  let channelToken: string;
  let otherChannelToken: string;
  let a: number;
  let b: number;

  const get = (path: string, query: Record<string, string | number> = {}, token = admin) =>
    request(api.app).get(`/api/migration/v1${path}`).query(query).set('Authorization', `Bearer ${token}`);

  /** Every row of a collection of channel A, page by page. */
  async function readAll(collection: ExportCollection, query: Record<string, string | number> = {}): Promise<Array<Record<string, unknown>>> {
    const rows: Array<Record<string, unknown>> = [];
    for (;;) {
      const res = await get(`/${collection}`, { broadcast_channel_id: a, limit: 2, offset: rows.length, ...query });
      expect(res.status).toBe(200);
      rows.push(...(res.body.data as Array<Record<string, unknown>>));
      if (!res.body.pagination.has_more) return rows;
    }
  }

  beforeAll(async () => {
    const { fixtures, database } = api;
    const db = database.db;
    a = (await fixtures.aChannel({ name: 'Exported channel' })).id;
    b = (await fixtures.aChannel({ name: 'Stranger channel' })).id;
    admin = await fixtures.anAdminToken(PERMISSIONS);
    adminWithoutMigration = await fixtures.anAdminToken(PERMISSIONS.filter((p) => p !== 'migration_read'));
    channelToken = await fixtures.aToken(a);
    otherChannelToken = await fixtures.aToken(b);

    const s1 = await fixtures.aSubscriber(a, 'one@a.test', { tags: ['vip', 'news'] });
    const s2 = await fixtures.aSubscriber(a, 'two@a.test', { tags: ['news'] });
    await fixtures.aSubscriber(a, 'three@a.test');
    const sb = await fixtures.aSubscriber(b, 'stranger@b.test', { tags: ['stranger-tag'] });

    for (const [channel, label] of [
      [a, 'A template'],
      [a, 'A second template'],
      [b, 'Stranger template'],
    ] as const) {
      await db.raw(`INSERT INTO templates (channel_id, label, subject, body) VALUES (?, ?, 'S', 'B')`, [channel, label]);
    }
    await db.raw(`INSERT INTO segments (channel_id, name) VALUES (?, 'A segment'), (?, 'Stranger segment')`, [a, b]);
    await fixtures.aSequence(a, [{ action: 'deactivate_subscriber' }]);
    await fixtures.aSequence(b, []);
    await db.raw(`UPDATE sequences SET unsubscribe_secret = 'mcs1.sequence-secret-7f3a9c' WHERE channel_id = ?`, [a]);
    await fixtures.aCaptureServer(a, 2525, {
      username: 'smtp-user',
      password: SMTP_PASSWORD,
      dkimDomain: 'a.test',
      dkimSelector: 's1',
      dkimPrivateKey: DKIM_KEY,
    });
    await fixtures.aCaptureServer(b, 2526, { username: 'stranger-user' });
    await db.raw(
      `INSERT INTO opt_in_forms (channel_id, identifier, label, created_at, updated_at)
       VALUES (?, gen_random_uuid(), 'A form', now(), now()), (?, gen_random_uuid(), 'Stranger form', now(), now())`,
      [a, b],
    );
    const now = new Date();
    const old = new Date(now.getTime() - 200 * 86_400_000);
    const recent = await fixtures.aBroadcast(a, { name: 'Recent broadcast' });
    const ancient = await fixtures.aBroadcast(a, { name: 'Ancient broadcast' }, old);
    const stranger = await fixtures.aBroadcast(b, { name: 'Stranger broadcast' });
    await db.raw(`UPDATE broadcasts SET tracking_secret = 'mcs1.tracking-secret-7f3a9c' WHERE channel_id = ?`, [a]);
    const recipients = (
      await db.raw(
        `INSERT INTO broadcast_recipients (broadcast_id, subscriber_id, message_id, status) VALUES
           (?, ?, 'm1@a.test', 'sent'), (?, ?, 'm2@a.test', 'sent'), (?, ?, 'm3@a.test', 'sent'), (?, ?, 'stranger@b.test', 'sent')
         RETURNING id`,
        [recent.id, s1.id, recent.id, s2.id, ancient.id, s1.id, stranger.id, sb.id],
      )
    ).rows as Array<{ id: string }>;
    const links = (
      await db.raw(
        `INSERT INTO broadcast_links (broadcast_id, identifier, url) VALUES (?, 'l1', 'https://a.test/1'), (?, 'l2', 'https://stranger.test/1') RETURNING id`,
        [recent.id, stranger.id],
      )
    ).rows as Array<{ id: string }>;
    await db.raw(
      `INSERT INTO email_events (channel_id, broadcast_id, recipient_id, subscriber_id, link_id, type, occurred_at) VALUES
         (?, ?, ?, ?, ?, 'clicked', ?), (?, ?, ?, ?, NULL, 'opened', ?), (?, ?, ?, ?, NULL, 'clicked', ?), (?, ?, ?, ?, ?, 'clicked', ?)`,
      [
        ...[a, recent.id, recipients[0]!.id, s1.id, links[0]!.id, now],
        ...[a, recent.id, recipients[1]!.id, s2.id, now],
        ...[a, ancient.id, recipients[2]!.id, s1.id, old],
        ...[b, stranger.id, recipients[3]!.id, sb.id, links[1]!.id, now],
      ],
    );
    for (const channel of [a, b]) {
      await fixtures.repositories.webhookEndpoints.create(
        {
          channelId: channel,
          url: `https://hooks.example/${channel}`,
          description: null,
          active: true,
          eventTypes: ['subscriber.created'],
          retriesToAttempt: 6,
          secret: WEBHOOK_SECRET,
        },
        now,
      );
    }
    await db.raw(
      `INSERT INTO suppressions (channel_id, email, reason) VALUES (NULL, 'global@x.test', 'manual'), (?, 'gone@a.test', 'manual'), (?, 'stranger-gone@b.test', 'manual')`,
      [a, b],
    );
    const users = (
      await db.raw(
        `INSERT INTO users (email, password_hash, totp_secret, two_factor_enabled, sudo) VALUES
           ('member@a.test', ?, ?, true, false), ('root@x.test', ?, NULL, false, true), ('stranger-user@b.test', ?, NULL, false, false)
         RETURNING id`,
        [PASSWORD_HASH, TOTP_SECRET, PASSWORD_HASH, PASSWORD_HASH],
      )
    ).rows as Array<{ id: string }>;
    await db.raw(
      `INSERT INTO user_channel_permissions (user_id, channel_id, permissions) VALUES (?, ?, '{"subscribers": true}'), (?, ?, '{"subscribers": true}')`,
      [users[0]!.id, a, users[2]!.id, b],
    );
  });

  describe('who may read', () => {
    it('answers a channel token 403 with the exact message, on the manifest and on a collection', async () => {
      for (const path of ['/manifest', '/subscribers', '/file_assets/1/download', '/subscribers?limit=abc', '/manifest?days_history=0', '/autopilots']) {
        const res = await get(path, { broadcast_channel_id: a }, channelToken);
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ error: 'Admin API token required for migration' });
        expectResponseMatchesDocument(res);
      }
    });

    it('answers an admin token without migration_read 401, and no token 401', async () => {
      for (const path of ['/manifest', '/subscribers', '/subscribers?limit=abc', '/file_assets/1/download']) {
        const res = await get(path, { broadcast_channel_id: a }, adminWithoutMigration);
        expect([path, res.status, res.body]).toEqual([path, 401, { error: 'Unauthorized' }]);
      }
      expect((await request(api.app).get('/api/migration/v1/manifest').query({ broadcast_channel_id: a })).status).toBe(401);
    });

    it('needs broadcast_channel_id on every call: missing 422, unknown 404', async () => {
      for (const path of ['/manifest', '/subscribers', '/file_assets/1/download']) {
        const missing = await get(path);
        expect(missing.status).toBe(422);
        expect(missing.body).toEqual({ error: 'broadcast_channel_id is required with an admin token' });
        expectResponseMatchesDocument(missing);
        const unknown = await get(path, { broadcast_channel_id: 987654 });
        expect(unknown.status).toBe(404);
        expect(unknown.body).toEqual({ error: 'Channel not found' });
      }
    });

    it('answers an unknown collection 404 Not found', async () => {
      const res = await get('/autopilots', { broadcast_channel_id: a });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Not found' });
    });
  });

  describe('manifest', () => {
    it('names the format, platform and channel, and counts each collection as its total', async () => {
      const res = await get('/manifest', { broadcast_channel_id: a });
      expect(res.status).toBe(200);
      expectResponseMatchesDocument(res);
      expect(res.body).toMatchObject({
        export_format_version: 1,
        platform: { name: 'Mailcast', version: PLATFORM.version },
        broadcast_channel: { id: a, name: 'Exported channel' },
      });
      expect(new Date(res.body.exported_at as string).toISOString()).toBe(res.body.exported_at);
      expect(Object.keys(res.body.counts as object)).toEqual([...EXPORT_COLLECTIONS]);
      for (const collection of EXPORT_COLLECTIONS) {
        const page = await get(`/${collection}`, { broadcast_channel_id: a, limit: 1 });
        expectResponseMatchesDocument(page);
        expect([collection, page.body.pagination.total]).toEqual([collection, res.body.counts[collection]]);
      }
      expect(res.body.counts).toMatchObject({
        channels: 1,
        subscribers: 3,
        templates: 2,
        segments: 1,
        sequences: 1,
        email_servers: 1,
        opt_in_forms: 1,
        broadcasts: 2,
        outbound_receipts: 3,
        webhook_endpoints: 1,
        tokens: 1,
        suppressions: 1,
        unsubscribed_emails: 1,
        tags: 2,
        users: 2,
        link_redirects: 1,
        link_clicks: 2,
        subscriber_histories: 3,
        file_assets: 0,
      });
    });

    it('counts the history within days_history (default 90), as the collections answer with the same days_history', async () => {
      const res = await get('/manifest', { broadcast_channel_id: a });
      expect(res.body.history).toEqual({ days: 90, broadcasts: 1, outbound_receipts: 2, link_clicks: 1, subscriber_histories: 2 });
      const wide = await get('/manifest', { broadcast_channel_id: a, days_history: 365 });
      expect(wide.body.history).toEqual({ days: 365, broadcasts: 2, outbound_receipts: 3, link_clicks: 2, subscriber_histories: 3 });
      for (const collection of ['broadcasts', 'outbound_receipts', 'link_clicks', 'subscriber_histories'] as const) {
        const page = await get(`/${collection}`, { broadcast_channel_id: a, days_history: 90 });
        expect([collection, page.body.pagination.total]).toEqual([collection, res.body.history[collection]]);
      }
    });

    it('refuses a days_history outside 1..365 or not a whole number with 422', async () => {
      for (const days of ['0', '366', 'abc', '-1', '1.5', '']) {
        const res = await get('/manifest', { broadcast_channel_id: a, days_history: days });
        expect([days, res.status]).toEqual([days, 422]);
        expect(res.body).toEqual({ error: 'days_history must be an integer from 1 to 365' });
      }
      expect((await get('/broadcasts', { broadcast_channel_id: a, days_history: '0' })).status).toBe(422);
    });
  });

  describe('collections', () => {
    it('answer every row in id order, page by page, with has_more until the last page', async () => {
      for (const collection of EXPORT_COLLECTIONS) {
        const total = (await get(`/${collection}`, { broadcast_channel_id: a })).body.pagination.total as number;
        const rows = await readAll(collection);
        expect([collection, rows.length]).toEqual([collection, total]);
        if (collection === 'tags') continue;
        const ids = rows.map((row) => Number(row.id));
        expect([collection, ids]).toEqual([collection, [...ids].sort((x, y) => x - y)]);
        expect(new Set(ids).size).toBe(ids.length);
      }
    });

    it('answer pagination {total, limit, offset, has_more}, clamp limit to 250 and answer past the end empty', async () => {
      const first = await get('/subscribers', { broadcast_channel_id: a, limit: 2 });
      expect(first.body.pagination).toEqual({ total: 3, limit: 2, offset: 0, has_more: true });
      expect(first.body.data).toHaveLength(2);
      const last = await get('/subscribers', { broadcast_channel_id: a, limit: 2, offset: 2 });
      expect(last.body.pagination).toEqual({ total: 3, limit: 2, offset: 2, has_more: false });
      expect(last.body.data.map((s: { email: string }) => s.email)).toEqual(['three@a.test']);
      const clamped = await get('/subscribers', { broadcast_channel_id: a, limit: 5000 });
      expect(clamped.body.pagination).toEqual({ total: 3, limit: 250, offset: 0, has_more: false });
      const byDefault = await get('/subscribers', { broadcast_channel_id: a });
      expect(byDefault.body.pagination).toEqual({ total: 3, limit: 250, offset: 0, has_more: false });
      const beyond = await get('/subscribers', { broadcast_channel_id: a, offset: 10 });
      expect(beyond.body).toEqual({ data: [], pagination: { total: 3, limit: 250, offset: 10, has_more: false } });
    });

    it('refuse a limit or offset that is not a whole number in range with 422', async () => {
      for (const limit of ['0', '-1', 'abc', '2.5', '']) {
        const res = await get('/subscribers', { broadcast_channel_id: a, limit });
        expect([limit, res.status, res.body]).toEqual([limit, 422, { error: 'limit must be an integer from 1 to 250' }]);
      }
      for (const offset of ['-1', 'abc', '1e3']) {
        const res = await get('/templates', { broadcast_channel_id: a, offset });
        expect([offset, res.status, res.body]).toEqual([offset, 422, { error: 'offset must be a non-negative integer' }]);
      }
    });

    it('answer each collection in its shape', async () => {
      const [channel] = await readAll('channels');
      expect(channel).toMatchObject({ id: a, name: 'Exported channel' });
      expect((await readAll('subscribers')).map((s) => s.email)).toEqual(['one@a.test', 'two@a.test', 'three@a.test']);
      expect(await readAll('tags')).toEqual([
        { name: 'news', subscribers_count: 2 },
        { name: 'vip', subscribers_count: 1 },
      ]);
      const [sequence] = await readAll('sequences');
      expect((sequence!.steps as Array<{ action: string }>).map((s) => s.action)).toEqual(['entry_point', 'deactivate_subscriber']);
      const [server] = await readAll('email_servers');
      expect(server).toMatchObject({ username: 'smtp-user', password: '[REDACTED]', dkim_private_key: '[REDACTED]', dkim_selector: 's1' });
      const [endpoint] = await readAll('webhook_endpoints');
      expect(endpoint).toMatchObject({ url: `https://hooks.example/${a}`, secret: EXPORT_WEBHOOK_SECRET });
      expect(EXPORT_WEBHOOK_SECRET).toMatch(/^whsec_\*{44}$/);
      const [token] = await readAll('tokens');
      expect(Object.keys(token!).sort()).toEqual(['created_at', 'id', 'label', 'last_used_at', 'permissions', 'redacted_value', 'revoked_at', 'type']);
      expect(token!.redacted_value).toBe(`${channelToken.slice(0, 4)}••••••••${channelToken.slice(-4)}`);
      expect((await readAll('suppressions')).map((s) => s.email)).toEqual(['global@x.test']);
      expect((await readAll('unsubscribed_emails')).map((s) => s.email)).toEqual(['gone@a.test']);
      const users = await readAll('users');
      expect(users.map((u) => [u.email, u.sudo, u.permissions])).toEqual([
        ['member@a.test', false, { subscribers: true }],
        ['root@x.test', true, null],
      ]);
      expect((await readAll('link_redirects')).map((l) => l.url)).toEqual(['https://a.test/1']);
      expect((await readAll('link_clicks')).every((e) => e.type === 'clicked')).toBe(true);
      expect((await readAll('broadcasts')).map((x) => x.name)).toEqual(['Recent broadcast', 'Ancient broadcast']);
      expect((await readAll('broadcasts', { days_history: 30 })).map((x) => x.name)).toEqual(['Recent broadcast']);
      expect((await readAll('outbound_receipts')).map((r) => r.message_id)).toEqual(['m1@a.test', 'm2@a.test', 'm3@a.test']);
      expect(await readAll('file_assets')).toEqual([]);
    });

    it('answers a file asset download 404, as Mailcast keeps no file assets', async () => {
      const res = await get('/file_assets/1/download', { broadcast_channel_id: a });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'File asset not found' });
      expectResponseMatchesDocument(res);
    });
  });

  it("never answers another channel's rows", async () => {
    const everything = JSON.stringify(await Promise.all(EXPORT_COLLECTIONS.map((c) => readAll(c))));
    for (const foreign of ['stranger', 'Stranger', `hooks.example/${b}`]) expect(everything).not.toContain(foreign);
    // And the other channel reads its own.
    const theirs = await get('/subscribers', { broadcast_channel_id: b });
    expect(theirs.body.data.map((s: { email: string }) => s.email)).toEqual(['stranger@b.test']);
  });

  it('never answers a secret, a sealed value, a token or its hash, or a password hash', async () => {
    const db = api.database.db;
    const sealed = (
      (await db.raw(
        `SELECT password AS v FROM email_servers UNION ALL SELECT dkim_private_key FROM email_servers UNION ALL SELECT secret FROM webhook_endpoints
         UNION ALL SELECT tracking_secret FROM broadcasts UNION ALL SELECT unsubscribe_secret FROM sequences`,
      )) as { rows: Array<{ v: string | null }> }
    ).rows
      .map((r) => r.v)
      .filter((v): v is string => v !== null);
    expect(sealed.length).toBeGreaterThanOrEqual(5);
    const everything = JSON.stringify(await Promise.all(EXPORT_COLLECTIONS.map((c) => readAll(c, { days_history: 365 }))));
    const forbidden = [
      SMTP_PASSWORD,
      DKIM_KEY,
      JSON.stringify(DKIM_KEY).slice(1, -1),
      'dkim-7f3a9c',
      WEBHOOK_SECRET,
      WEBHOOK_SECRET.slice(-4),
      PASSWORD_HASH,
      '$argon2',
      TOTP_SECRET,
      '7f3a9c',
      channelToken,
      otherChannelToken,
      admin,
      hashApiToken(channelToken).toString('hex'),
      ...sealed,
      'mcs1.',
    ];
    for (const value of forbidden) expect([value, everything.includes(value)]).toEqual([value, false]);
    for (const key of ['password_hash', 'totp_secret', 'token_hash', 'tracking_secret', 'unsubscribe_secret', 'claimed_by']) {
      expect([key, everything.includes(`"${key}"`)]).toEqual([key, false]);
    }
  });
});
