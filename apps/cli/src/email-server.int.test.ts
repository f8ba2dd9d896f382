import { loadConfig, PgEmailServerRepository, secretBoxFor } from '@mailcast/adapters';
import { findPlaintext, memoryLogger } from '@mailcast/testkit';
import { useApi } from '../../api/src/test-support/harness';
import { runAdmin } from './test-support/run-admin';

/** `email-server add` (docs/email-servers.md): TLS modes, and a password never taken from argv. */
describe('admin email-server add', () => {
  const api = useApi();
  let channelId: number;
  beforeAll(async () => {
    channelId = (await api.fixtures.aChannel()).id;
  });

  const admin = (argv: string[], options: { stdin?: string; env?: NodeJS.ProcessEnv } = {}) =>
    runAdmin(api.database.url, [...argv, '--json'], { ...options, stdin: options.stdin ?? '' });
  const add = (...flags: string[]) => ['email-server', 'add', '--channel', String(channelId), ...flags];
  const stored = async (id: number) =>
    (await new PgEmailServerRepository(api.database.db, secretBoxFor(loadConfig({}), memoryLogger().logger)).findById(channelId, id))!;

  it('reads the password from standard input with --pass-stdin, and keeps it sealed', async () => {
    const result = await admin(
      add(
        '--host',
        'smtp.example.com',
        '--port',
        '465',
        '--secure',
        '--user',
        'u',
        '--pass-stdin',
        '--from-email',
        'from@example.com',
        '--from-name',
        'Sender',
        '--bounce-domain',
        'bounces.example.com',
      ),
      {
        stdin: 'from-stdin-secret\n',
      },
    );
    expect(result).toMatchObject({ code: 0, json: { email_server: { id: expect.any(Number), host: 'smtp.example.com', port: 465 } } });
    expect(await stored(result.json.email_server.id)).toMatchObject({
      host: 'smtp.example.com',
      port: 465,
      tls: 'implicit',
      username: 'u',
      password: 'from-stdin-secret',
      fromEmail: 'from@example.com',
      fromName: 'Sender',
      bounceDomain: 'bounces.example.com',
    });
    expect(await findPlaintext(api.database.db, 'from-stdin-secret')).toEqual([]);
    expect(result.stdout + result.stderr).not.toContain('from-stdin-secret');
  });

  it('takes the password from SMTP_PASSWORD', async () => {
    const result = await admin(add('--host', 'smtp.example.com', '--port', '587', '--user', 'u'), { env: { SMTP_PASSWORD: 'from-env-secret' } });
    expect(result.code).toBe(0);
    expect(await stored(result.json.email_server.id)).toMatchObject({ tls: 'starttls', password: 'from-env-secret' });
  });

  it('refuses --pass, saying why and what to use instead, and stores nothing', async () => {
    const before = await api.database.db('email_servers').count<{ count: string }[]>({ count: '*' });
    const result = await admin(add('--host', 'smtp.example.com', '--port', '587', '--user', 'u', '--pass', 'argv-secret'));
    expect(result.code).toBe(2);
    expect(result.json.error).toMatch(
      /^--pass is refused: a password on the command line shows in ps and in shell history; pipe it to --pass-stdin or set SMTP_PASSWORD/,
    );
    expect(result.json.error).not.toContain('argv-secret');
    expect(await api.database.db('email_servers').count<{ count: string }[]>({ count: '*' })).toEqual(before);
  });

  it.each([
    [['--host', '127.0.0.1', '--port', '2525'], 'none'],
    [['--host', 'localhost', '--port', '2525'], 'none'],
    [['--host', 'smtp.example.com', '--port', '587'], 'starttls'],
    [['--host', 'smtp.example.com', '--port', '465', '--secure'], 'implicit'],
    [['--host', '127.0.0.1', '--port', '2525', '--tls', 'starttls'], 'starttls'],
    [['--host', 'smtp.example.com', '--port', '465', '--tls', 'implicit'], 'implicit'],
  ])('without or with --tls: %j gets tls %s', async (flags, tls) => {
    const result = await admin(add(...flags));
    expect(result.code).toBe(0);
    expect((await stored(result.json.email_server.id)).tls).toBe(tls);
  });

  it('stores the sending limits given by --max-per-*, and none for those left out', async () => {
    const result = await admin(add('--host', 'smtp.example.com', '--port', '587', '--max-per-second', '14', '--max-per-day', '50000'));
    expect(result.code).toBe(0);
    expect(await stored(result.json.email_server.id)).toMatchObject({ maxPerSecond: 14, maxPerMinute: null, maxPerHour: null, maxPerDay: 50000 });
  });

  it('allows --tls none for a remote host only with SMTP_ALLOW_PLAINTEXT=true', async () => {
    const refused = await admin(add('--host', 'smtp.example.com', '--port', '25', '--tls', 'none'));
    expect(refused).toMatchObject({ code: 1, json: { error: 'tls none is allowed only for a loopback host, or with SMTP_ALLOW_PLAINTEXT=true' } });
    const allowed = await admin(add('--host', 'smtp.example.com', '--port', '25', '--tls', 'none'), { env: { SMTP_ALLOW_PLAINTEXT: 'true' } });
    expect(allowed.code).toBe(0);
  });

  it('refuses an internal host without SMTP_ALLOW_PRIVATE, in any numeric form, and stores nothing (docs/email-servers.md, "Addresses")', async () => {
    const before = await api.database.db('email_servers').count<{ count: string }[]>({ count: '*' });
    const refused = await admin(add('--host', '0x7f.1', '--port', '2525'), { env: { SMTP_ALLOW_PRIVATE: 'false' } });
    expect(refused).toMatchObject({ code: 1, json: { error: 'host address 0x7f.1 is not allowed' } });
    const metadata = await admin(add('--host', '169.254.169.254', '--port', '25'), { env: { SMTP_ALLOW_PRIVATE: 'false' } });
    expect(metadata).toMatchObject({ code: 1, json: { error: 'host address 169.254.169.254 is not allowed' } });
    expect(await api.database.db('email_servers').count<{ count: string }[]>({ count: '*' })).toEqual(before);
  });

  it.each([
    [['--host', 'h', '--port', '0'], 2, '--port must be a positive integer'],
    [['--host', 'h', '--port', '25', '--tls', 'ssl'], 2, '--tls must be one of starttls, implicit, none'],
    [['--host', 'h', '--port', '25', '--tls', 'none', '--secure'], 2, '--secure means --tls implicit, not --tls none'],
    [['--host', 'h', '--port', '25', '--max-per-second', '1.5'], 2, '--max-per-second must be a positive integer'],
    [['--host', 'h', '--port', '25', '--pass-stdin'], 2, '--pass-stdin read an empty password from standard input'],
  ])('%j fails with exit %i: %s', async (flags, code, message) => {
    const result = await admin(add(...flags));
    expect(result.code).toBe(code);
    expect(result.json.error).toMatch(new RegExp(`^${message.replace(/[-[\]]/g, '\\$&')}\nusage: email-server add`));
  });
});
