import { ValidationError } from '../errors';
import type { EmailServerChanges } from '../ports';
import { TableSmtpHosts } from '../test-support/email-server-fakes';
import { FakeTransactor, fakeRepositories } from '../test-support/fakes';
import { UpdateEmailServer } from './update-email-server';

const owner = { tokenId: 1, channelId: 1, permissions: ['email_servers_write' as const] };
const stored = { host: 'smtp.example.com', port: 587, tls: 'starttls' as const, username: 'u', password: 'stored-secret', fromEmail: null, fromName: null };

async function setUp(hosts = new TableSmtpHosts()) {
  const repositories = fakeRepositories();
  await repositories.channels.create({ name: 'c' });
  await repositories.emailServers.create({ channelId: 1, ...stored });
  const update = new UpdateEmailServer(new FakeTransactor(repositories), false, repositories, hosts);
  return { repositories, hosts, update: (changes: EmailServerChanges) => update.execute(owner, { id: 1, changes }) };
}

/** docs/email-servers.md, "Addresses": a host or tls being written goes through the address policy. */
describe('UpdateEmailServer and the address policy', () => {
  it('asks the address policy of a new host, and refuses what it refuses, writing nothing', async () => {
    const { update, repositories, hosts } = await setUp(new TableSmtpHosts({ refused: { '10.0.0.5': 'address 10.0.0.5 is not allowed' } }));
    await expect(update({ host: '10.0.0.5' })).rejects.toEqual(ValidationError.forFields({ host: ['address 10.0.0.5 is not allowed'] }));
    expect(repositories.emailServers.rows[0]).toMatchObject({ host: 'smtp.example.com', password: 'stored-secret' });
    expect(hosts.asked).toEqual(['refusal 10.0.0.5']);
  });

  it('decides tls none on what the host stands for, and asks nothing when host and tls stay', async () => {
    const { update, hosts } = await setUp(new TableSmtpHosts({ loopback: ['loop.example.com'] }));
    await expect(update({ tls: 'none' })).rejects.toEqual(
      ValidationError.forFields({ tls: ['none is allowed only for a loopback host, or with SMTP_ALLOW_PLAINTEXT=true'] }),
    );
    await expect(update({ host: 'loop.example.com', tls: 'none' })).resolves.toMatchObject({ tls: 'none', password: null });
    hosts.asked.length = 0;
    await update({ name: 'Renamed' });
    expect(hosts.asked).toEqual([]);
  });
});
