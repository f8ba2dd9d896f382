import { BRAND_KIT_DEFAULTS, PERMISSIONS } from '@mailcast/domain';
import { NotFoundError, UnauthorizedError, ValidationError } from '../errors';
import type { UserIdentities } from '../ports';
import { CountingRandom, FakeTransactor, fakeRepositories } from '../test-support/fakes';
import { issueApiToken } from '../auth/create-api-token';
import { GetChannelDesign, SetChannelDesign } from './channel-design';
import { DescribeCaller } from './describe-caller';

class FakeUserIdentities implements UserIdentities {
  readonly users = new Map<number, string>();
  async findIdentity(userId: number) {
    const email = this.users.get(userId);
    return email === undefined ? null : { id: userId, email };
  }
}

describe('DescribeCaller', () => {
  const setup = async () => {
    const repositories = fakeRepositories();
    const users = new FakeUserIdentities();
    const channel = await repositories.channels.create({ name: 'Team channel' });
    return { repositories, users, channel, describe: new DescribeCaller(repositories, users) };
  };

  it('describes a signed-in user by id and email, with every permission name, instead of a token', async () => {
    const { users, channel, describe } = await setup();
    users.users.set(7, 'ada@example.com');
    const described = await describe.execute({ tokenId: 0, userId: 7, channelId: channel.id, permissions: ['subscribers_read'] });
    expect(described).toEqual({
      type: 'user',
      user: { id: 7, email: 'ada@example.com', permissions: Object.fromEntries(PERMISSIONS.map((p) => [p, p === 'subscribers_read'])) },
      channel: { id: channel.id, name: 'Team channel', slug: 'team-channel' },
    });
  });

  it('refuses a user who no longer exists, and a revoked token', async () => {
    const { repositories, channel, describe } = await setup();
    await expect(describe.execute({ tokenId: 0, userId: 99, channelId: channel.id, permissions: [] })).rejects.toBeInstanceOf(UnauthorizedError);
    const issued = await issueApiToken(repositories, new CountingRandom(), { channelId: channel.id }, ['subscribers_read'], 'CI');
    await repositories.apiTokens.revoke(issued.id, new Date());
    await expect(describe.execute({ tokenId: issued.id, channelId: channel.id, permissions: ['subscribers_read'] })).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('describes a channel token with its label and both names of its kind', async () => {
    const { repositories, channel, describe } = await setup();
    const issued = await issueApiToken(repositories, new CountingRandom(), { channelId: channel.id }, ['subscribers_read'], 'CI');
    const described = await describe.execute({ tokenId: issued.id, channelId: channel.id, permissions: ['subscribers_read'] });
    expect(described).toMatchObject({ type: 'channel_scoped', tokenType: 'channel', token: { label: 'CI', type: 'channel_scoped', lastUsedAt: null } });
  });
});

describe('channel design', () => {
  const setup = async () => {
    const repositories = fakeRepositories();
    const channel = await repositories.channels.create({ name: 'c' });
    return { repositories, channel, get: new GetChannelDesign(repositories), set: new SetChannelDesign(new FakeTransactor(repositories)) };
  };

  it('needs templates_read, and answers the defaults until something is set', async () => {
    const { channel, get } = await setup();
    await expect(get.execute({ tokenId: 1, channelId: channel.id, permissions: ['templates_write'] })).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(get.execute({ tokenId: 1, channelId: channel.id, permissions: ['templates_read'] })).resolves.toEqual(BRAND_KIT_DEFAULTS);
  });

  it('merges over what is stored; a refused kit changes nothing; an unknown channel is a 404', async () => {
    const { repositories, channel, set } = await setup();
    await set.execute({ channelId: channel.id, kit: { layout: { radius: 0 } } });
    const merged = await set.execute({ channelId: channel.id, kit: { layout: { width: 800 } } });
    expect(merged.layout).toEqual({ width: 800, radius: 0 });
    await expect(set.execute({ channelId: channel.id, kit: { layout: { width: 100 } } })).rejects.toBeInstanceOf(ValidationError);
    expect(repositories.channels.designs.get(channel.id)).toEqual({ layout: { radius: 0, width: 800 } });
    await expect(set.execute({ channelId: 42, kit: {} })).rejects.toBeInstanceOf(NotFoundError);
  });
});
