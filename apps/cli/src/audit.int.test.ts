import { useApi } from '../../api/src/test-support/harness';
import { runAdmin } from './test-support/run-admin';

/** docs/teams.md, "Audit log": the admin CLI's writes are kept, its reads and its flags are not. */
describe('the admin CLI in the audit log', () => {
  const api = useApi();
  const admin = (...argv: string[]) => runAdmin(api.database.url, argv, { stdin: 'cli-Secret-pass' });
  const rows = () =>
    api.database.db('audit_log').orderBy('id').select('actor_type', 'actor_label', 'channel_id', 'method', 'path', 'status', 'action', 'token_id', 'user_id');

  it('records each write command with its outcome as the cli actor, never a read nor a flag', async () => {
    const { json } = await admin('channel', 'create', '--name', 'Audited', '--json');
    const channel = json.channel.id as number;
    expect(
      (
        await admin(
          'email-server',
          'add',
          '--channel',
          String(channel),
          '--host',
          '127.0.0.1',
          '--port',
          '2525',
          '--tls',
          'none',
          '--user',
          'u',
          '--pass-stdin',
          '--json',
        )
      ).stderr,
    ).toBe('');
    expect((await admin('template', 'list', '--channel', String(channel), '--json')).code).toBe(0);
    expect((await admin('token', 'create', '--channel', '999999', '--permissions', 'broadcasts_read', '--json')).code).toBe(1);

    const kept = await rows();
    const label = expect.stringMatching(/^admin CLI/);
    expect(kept).toEqual([
      {
        actor_type: 'cli',
        actor_label: label,
        channel_id: null,
        method: 'CLI',
        path: 'channel create',
        status: 0,
        action: 'channel create',
        token_id: null,
        user_id: null,
      },
      {
        actor_type: 'cli',
        actor_label: label,
        channel_id: channel,
        method: 'CLI',
        path: 'email-server add',
        status: 0,
        action: 'email-server add',
        token_id: null,
        user_id: null,
      },
      {
        actor_type: 'cli',
        actor_label: label,
        channel_id: 999999,
        method: 'CLI',
        path: 'token create',
        status: 1,
        action: 'token create',
        token_id: null,
        user_id: null,
      },
    ]);
    expect(JSON.stringify(await api.database.db('audit_log').select('*'))).not.toContain('cli-Secret-pass');
  });
});
