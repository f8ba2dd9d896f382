import { eventually, freePort } from '@mailcast/testkit';
import request from 'supertest';
import { useApi } from '../../api/src/test-support/harness';
import { runCli } from './main';
import { runAdmin } from './test-support/run-admin';

/** docs/operations.md Admin CLI: with --json, exactly one JSON document on stdout. */
describe('admin CLI', () => {
  const api = useApi();

  const admin = (...argv: string[]) => runAdmin(api.database.url, argv);

  const broadcastsWith = (token: string) => request(api.app).get('/api/v1/broadcasts').set('Authorization', `Bearer ${token}`);

  it('channel create prints the channel and a token with every permission', async () => {
    const result = await admin('channel', 'create', '--name', 'Weekly', '--from-email', 'news@example.com', '--json');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(result.json).toEqual({
      channel: { id: expect.any(Number), name: 'Weekly', slug: expect.stringMatching(/^weekly(-\d+)?$/) },
      token: expect.stringMatching(/^mc_/),
    });
    expect((await broadcastsWith(result.json.token)).status).toBe(200);
    const channel = await api.database.db('channels').where({ id: result.json.channel.id }).first();
    expect(channel).toMatchObject({ name: 'Weekly', from_email: 'news@example.com', from_name: null });
  });

  it('token create issues a token with exactly the given permissions; revoke ends it', async () => {
    const { json: created } = await admin('channel', 'create', '--name', 'Scoped', '--json');
    const issued = await admin('token', 'create', '--channel', String(created.channel.id), '--permissions', 'subscribers_read, broadcasts_read', '--json');
    expect(issued.code).toBe(0);
    expect(issued.json).toEqual({ token: expect.stringMatching(/^mc_/), id: expect.any(Number), permissions: ['subscribers_read', 'broadcasts_read'] });
    expect((await broadcastsWith(issued.json.token)).status).toBe(200);

    const revoked = await admin('token', 'revoke', '--id', String(issued.json.id), '--json');
    expect(revoked).toMatchObject({ code: 0, json: { revoked: issued.json.id } });
    // The api hears of the revocation through NOTIFY, milliseconds after the CLI's commit.
    await eventually(async () => ((await broadcastsWith(issued.json.token)).status === 401 ? true : undefined), 1_000, 10);
    expect((await broadcastsWith(issued.json.token)).status).toBe(401);
  });

  it('token create --admin issues an admin (cross-channel) token, the only kind the global list answers', async () => {
    const issued = await admin('token', 'create', '--admin', '--label', 'ops', '--permissions', 'suppressions_read,global_suppressions_write', '--json');
    expect(issued.code).toBe(0);
    expect(issued.json).toEqual({
      token: expect.stringMatching(/^mc_/),
      id: expect.any(Number),
      type: 'admin_cross_channel',
      permissions: ['suppressions_read', 'global_suppressions_write'],
    });
    expect(await api.database.db('api_tokens').where({ id: issued.json.id }).first('type', 'label', 'channel_id')).toEqual({
      type: 'admin_cross_channel',
      label: 'ops',
      channel_id: null,
    });
    const added = await request(api.app)
      .post('/api/v1/global_suppressions.json')
      .set('Authorization', `Bearer ${issued.json.token}`)
      .send({ email: 'cli@example.com' });
    expect(added.status).toBe(201);
    const { json: created } = await admin('channel', 'create', '--name', 'Tenant', '--json');
    const refused = await request(api.app).get('/api/v1/global_suppressions.json').set('Authorization', `Bearer ${created.token}`);
    expect([refused.status, refused.body]).toEqual([403, { error: 'Admin API token required for global suppressions' }]);
  });

  it('a token without broadcasts_read is refused on broadcast routes', async () => {
    const { json: created } = await admin('channel', 'create', '--name', 'Narrow', '--json');
    const issued = await admin('token', 'create', '--channel', String(created.channel.id), '--permissions', 'subscribers_read', '--json');
    expect((await broadcastsWith(issued.json.token)).status).toBe(401);
  });

  it.each([
    [['token', 'create', '--channel', '1', '--permissions', 'root', '--json'], 1, 'permissions unknown: root'],
    [['token', 'create', '--channel', '999999', '--permissions', 'broadcasts_read', '--json'], 1, 'Channel not found'],
    [
      ['token', 'create', '--channel', '1', '--permissions', 'global_suppressions_write', '--json'],
      1,
      'permissions global_suppressions_write only for admin tokens (token create --admin)',
    ],
    [
      ['token', 'create', '--admin', '--channel', '1', '--permissions', 'suppressions_read', '--json'],
      2,
      '--admin and --channel do not go together: an admin token names its channel per request\nusage: token create (--channel ID | --admin) --permissions p1,p2,... [--label L]',
    ],
    [['token', 'revoke', '--id', '999999', '--json'], 1, 'Token not found'],
    [['token', 'revoke', '--id', 'x', '--json'], 2, '--id must be a positive integer\nusage: token revoke --id N'],
    [['channel', 'create', '--json'], 2, '--name is required\nusage: channel create --name NAME [--from-email E] [--from-name N]'],
  ])('%j fails with exit %i and one JSON error document', async (argv, code, message) => {
    const result = await admin(...argv);
    expect(result.code).toBe(code);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(result.json).toEqual({ error: message });
  });

  it('refuses unknown commands and flags with a usage message', async () => {
    const unknown = await admin('channel', 'destroy', '--json');
    expect(unknown.code).toBe(2);
    expect(unknown.json.error).toMatch(/^unknown command\nusage: npm run -s admin -- <command> \[--json\]\n {2}channel create/);
    const badFlag = await admin('channel', 'create', '--name', 'x', '--colour', 'red', '--json');
    expect(badFlag.code).toBe(2);
    expect(badFlag.json.error).toMatch(/Unknown option '--colour'/);
  });

  it('prints plain text without --json', async () => {
    const result = await admin('channel', 'create', '--name', 'Plain');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^channel \d+ "Plain" created\napi token \(shown once\): mc_\S+\n$/);
  });

  describe('broadcast progress', () => {
    it('prints the current state once with --json', async () => {
      const { channel } = await api.fixtures.aTenant();
      const broadcast = await api.fixtures.aBroadcast(channel.id);
      await api.database.db('broadcasts').where({ id: broadcast.id }).update({ status: 'sending', total_recipients: 8, broadcast_recipients_count: 2 });
      const result = await admin('broadcast', 'progress', '--id', String(broadcast.id), '--json');
      expect(result.code).toBe(0);
      expect(result.json).toEqual({
        id: broadcast.id,
        status: 'sending',
        total_recipients: 8,
        broadcast_recipients_count: 2,
        percentage_complete: 25,
      });
    });

    it('follows a sending broadcast with a progress bar until it finishes', async () => {
      const { channel } = await api.fixtures.aTenant();
      const broadcast = await api.fixtures.aBroadcast(channel.id);
      const rows = api.database.db('broadcasts').where({ id: broadcast.id });
      await rows.clone().update({ status: 'sending', total_recipients: 4, broadcast_recipients_count: 1 });
      let stdout = '';
      let stderr = '';
      const io = { out: (t: string) => (stdout += t), err: (t: string) => (stderr += t) };
      const watching = runCli(['broadcast', 'progress', '--id', String(broadcast.id)], io, { DATABASE_URL: api.database.url });
      // Each change is made once the bar has shown the state before it (off a terminal it
      // prints a line every two seconds), so the CLI is seen following the broadcast.
      const shown = (state: RegExp) => eventually(async () => (state.test(stderr) ? true : undefined), 10_000, 20);
      await shown(/25% \| 1\/4 \| sending/);
      await rows.clone().update({ broadcast_recipients_count: 3 });
      await shown(/75% \| 3\/4 \| sending/);
      await rows.clone().update({ status: 'sent', broadcast_recipients_count: 4 });
      expect(await watching).toBe(0);
      expect(stdout).toBe(`broadcast ${broadcast.id}: sent, 4/4 recipients processed (100%)\n`);
      expect(stderr).toContain(`broadcast ${broadcast.id} [`);
      expect(stderr).toMatch(/100% \| 4\/4 \| sent/);
    }, 20_000);

    it('answers an unknown broadcast with an error and exit 1', async () => {
      const result = await admin('broadcast', 'progress', '--id', '999999', '--json');
      expect(result).toMatchObject({ code: 1, json: { error: 'Broadcast not found' } });
    });
  });

  it('says the database cannot be reached, with exit 1, when nothing answers at DATABASE_URL', async () => {
    const unreachable = `postgres://postgres:postgres@127.0.0.1:${await freePort()}/mailcast`;
    const result = await runAdmin(unreachable, ['channel', 'create', '--name', 'Nowhere', '--json']);
    expect(result).toMatchObject({
      code: 1,
      json: { error: expect.stringMatching(/^the database cannot be reached \(connect ECONNREFUSED .*\); check DATABASE_URL/) },
    });
  });
});
