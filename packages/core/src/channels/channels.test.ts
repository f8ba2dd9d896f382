import { CHANNEL_PERMISSIONS, type SmtpTls } from '@mailcast/domain';
import type { NewEmailServer } from '../ports';
import { NotFoundError, ValidationError } from '../errors';
import { TableSmtpHosts } from '../test-support/email-server-fakes';
import { CountingRandom, FakeTransactor, fakeRepositories } from '../test-support/fakes';
import { AddEmailServer } from '../email-servers/add-email-server';
import { CreateChannel } from './create-channel';

describe('channels', () => {
  it('creates a channel with a token holding every channel permission (nothing installation-wide), in one unit of work', async () => {
    const repositories = fakeRepositories();
    const transactor = new FakeTransactor(repositories);
    const result = await new CreateChannel(transactor, new CountingRandom()).execute({ name: 'News', fromEmail: 'a@b.co' });
    expect(result.channel).toMatchObject({ id: 1, name: 'News', fromEmail: 'a@b.co', fromName: null });
    expect(result.token).toMatch(/^mc_[A-Za-z0-9_-]{43}$/);
    expect(repositories.apiTokens.rows).toHaveLength(1);
    expect(repositories.apiTokens.rows[0]).toMatchObject({ channelId: 1, type: 'channel', permissions: [...CHANNEL_PERMISSIONS] });
    expect(repositories.apiTokens.rows[0]!.permissions).not.toContain('global_suppressions_write');
    expect(transactor.runs).toBe(1);
  });

  describe('AddEmailServer', () => {
    const server = { host: 'smtp.example.com', port: 587, tls: 'starttls' as const, username: null, password: null, fromEmail: null, fromName: null };

    it('adds a server to an existing channel', async () => {
      const repositories = fakeRepositories();
      await repositories.channels.create({ name: 'c' });
      const added = await new AddEmailServer(new FakeTransactor(repositories), false, new TableSmtpHosts()).execute({ channelId: 1, ...server });
      expect(added).toMatchObject({ id: 1, channelId: 1, ...server });
    });

    it.each<[Partial<NewEmailServer>, Record<string, string[]>]>([
      [{ port: 0 }, { port: ['must be an integer from 1 to 65535'] }],
      [{ port: 70000 }, { port: ['must be an integer from 1 to 65535'] }],
      [{ host: '  ' }, { host: ["can't be blank"] }],
      [{ tls: 'none' }, { tls: ['none is allowed only for a loopback host, or with SMTP_ALLOW_PLAINTEXT=true'] }],
      [{ tls: 'ssl' as SmtpTls }, { tls: ['must be one of starttls, implicit, none'] }],
      [{ password: 'p' }, { smtp_username: ['is required with a password'] }],
      [
        { maxPerSecond: 0, maxPerDay: 1.5 },
        { max_per_second: ['must be a positive integer or null'], max_per_day: ['must be a positive integer or null'] },
      ],
      [{ dkimDomain: 'exa mple.com' }, { dkim_domain: ['must be a domain name'] }],
    ])('refuses %j', async (change, fields) => {
      const repositories = fakeRepositories();
      await repositories.channels.create({ name: 'c' });
      await expect(
        new AddEmailServer(new FakeTransactor(repositories), false, new TableSmtpHosts()).execute({ channelId: 1, ...server, ...change }),
      ).rejects.toEqual(ValidationError.forFields(fields));
      expect(repositories.emailServers.rows).toHaveLength(0);
    });

    it.each([
      ['a loopback host', { host: '127.0.0.1' }, false],
      ['localhost', { host: 'localhost' }, false],
      ['any host when plaintext is allowed', { host: 'smtp.example.com' }, true],
    ])('accepts tls none for %s', async (_name, change, allowPlaintext) => {
      const repositories = fakeRepositories();
      await repositories.channels.create({ name: 'c' });
      const added = await new AddEmailServer(new FakeTransactor(repositories), allowPlaintext, new TableSmtpHosts()).execute({
        channelId: 1,
        ...server,
        tls: 'none',
        ...change,
      });
      expect(added.tls).toBe('none');
    });

    it('refuses an unknown channel', async () => {
      await expect(
        new AddEmailServer(new FakeTransactor(fakeRepositories()), false, new TableSmtpHosts()).execute({ channelId: 3, ...server }),
      ).rejects.toEqual(new NotFoundError('Channel not found'));
    });
  });
});
