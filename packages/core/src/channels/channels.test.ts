import { PERMISSIONS } from '@mailcast/domain';
import { NotFoundError, ValidationError } from '../errors';
import { CountingRandom, FakeTransactor, fakeRepositories } from '../test-support/fakes';
import { AddEmailServer } from './add-email-server';
import { CreateChannel } from './create-channel';

describe('channels', () => {
  it('creates a channel with a token holding every permission, in one unit of work', async () => {
    const repositories = fakeRepositories();
    const transactor = new FakeTransactor(repositories);
    const result = await new CreateChannel(transactor, new CountingRandom()).execute({ name: 'News', fromEmail: 'a@b.co' });
    expect(result.channel).toMatchObject({ id: 1, name: 'News', fromEmail: 'a@b.co', fromName: null });
    expect(result.token).toMatch(/^mc_[A-Za-z0-9_-]{43}$/);
    expect(repositories.apiTokens.rows).toHaveLength(1);
    expect(repositories.apiTokens.rows[0]).toMatchObject({ channelId: 1, permissions: [...PERMISSIONS] });
    expect(transactor.runs).toBe(1);
  });

  describe('AddEmailServer', () => {
    const server = { host: 'smtp.example.com', port: 587, secure: false, username: null, password: null, fromEmail: null, fromName: null };

    it('adds a server to an existing channel', async () => {
      const repositories = fakeRepositories();
      await repositories.channels.create({ name: 'c' });
      const added = await new AddEmailServer(new FakeTransactor(repositories)).execute({ channelId: 1, ...server });
      expect(added).toEqual({ id: 1, channelId: 1, ...server });
    });

    it.each([
      [{ port: 0 }, { port: ['must be an integer from 1 to 65535'] }],
      [{ port: 70000 }, { port: ['must be an integer from 1 to 65535'] }],
      [{ host: '  ' }, { host: ["can't be blank"] }],
    ])('refuses %j', async (change, fields) => {
      const repositories = fakeRepositories();
      await repositories.channels.create({ name: 'c' });
      await expect(
        new AddEmailServer(new FakeTransactor(repositories)).execute({ channelId: 1, ...server, ...change }),
      ).rejects.toEqual(ValidationError.forFields(fields));
      expect(repositories.emailServers.rows).toHaveLength(0);
    });

    it('refuses an unknown channel', async () => {
      await expect(
        new AddEmailServer(new FakeTransactor(fakeRepositories())).execute({ channelId: 3, ...server }),
      ).rejects.toEqual(new NotFoundError('Channel not found'));
    });
  });
});
