import { CHANNEL_PERMISSIONS, formatApiToken, hashApiToken, PERMISSIONS } from '@mailcast/domain';
import { NotFoundError, UnauthorizedError, ValidationError } from '../errors';
import { CountingRandom, FakeTransactor, FixedClock, fakeRepositories } from '../test-support/fakes';
import { Authenticate, NO_CHANNEL, requirePermission } from './authenticate';
import { CreateApiToken } from './create-api-token';
import { RevokeApiToken } from './revoke-api-token';

describe('tokens', () => {
  const setup = async () => {
    const repositories = fakeRepositories();
    const channel = await repositories.channels.create({ name: 'c' });
    const transactor = new FakeTransactor(repositories);
    const random = new CountingRandom();
    const clock = new FixedClock(new Date('2026-11-22T10:00:00Z'));
    return {
      repositories,
      channel,
      create: new CreateApiToken(transactor, random),
      revoke: new RevokeApiToken(transactor, clock),
      authenticate: new Authenticate(repositories),
    };
  };

  it('issues a token from 32 random bytes and stores only its hash', async () => {
    const { repositories, channel, create } = await setup();
    const issued = await create.execute({ channelId: channel.id, permissions: ['broadcasts_read', 'broadcasts_read'] });
    const expected = formatApiToken(Uint8Array.from({ length: 32 }, (_, i) => i));
    expect(issued).toEqual({ id: 1, channelId: channel.id, type: 'channel', label: null, token: expected, permissions: ['broadcasts_read'] });
    const [row] = repositories.apiTokens.rows;
    expect(Buffer.from(row!.hash).equals(hashApiToken(expected))).toBe(true);
    expect(JSON.stringify(row)).not.toContain(expected.slice(3));
  });

  it.each([
    [[], "can't be blank"],
    [['broadcasts_read', 'root'], 'unknown: root'],
  ])('refuses the permissions %j', async (permissions, message) => {
    const { channel, create } = await setup();
    await expect(create.execute({ channelId: channel.id, permissions })).rejects.toEqual(ValidationError.forFields({ permissions: [message] }));
  });

  it('refuses a token for a channel that does not exist', async () => {
    const { create } = await setup();
    await expect(create.execute({ channelId: 99, permissions: ['broadcasts_read'] })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('authenticates a valid token to its channel and permissions', async () => {
    const { channel, create, authenticate } = await setup();
    const issued = await create.execute({ channelId: channel.id, permissions: [...CHANNEL_PERMISSIONS] });
    await expect(authenticate.execute({ authorization: `Bearer ${issued.token}` })).resolves.toEqual({
      tokenId: issued.id,
      channelId: channel.id,
      permissions: [...CHANNEL_PERMISSIONS],
    });
  });

  it('issues admin tokens with no channel; they alone hold the admin-only permissions', async () => {
    const { channel, create, authenticate } = await setup();
    await expect(create.execute({ channelId: channel.id, permissions: ['global_suppressions_write'] })).rejects.toEqual(
      ValidationError.forFields({ permissions: ['global_suppressions_write only for admin tokens (token create --admin)'] }),
    );
    const issued = await create.execute({ admin: true, label: ' ops ', permissions: [...PERMISSIONS] });
    expect(issued).toMatchObject({ channelId: null, type: 'admin_cross_channel', label: 'ops' });
    await expect(authenticate.execute({ authorization: `Bearer ${issued.token}` })).resolves.toEqual({
      tokenId: issued.id,
      channelId: NO_CHANNEL,
      permissions: [...PERMISSIONS],
      admin: true,
    });
  });

  it.each([undefined, '', 'Bearer', 'Bearer ', 'Token abc', 'Bearer mc_unknown', `Bearer ${'a'.repeat(513)}`, 'Bearer ä'])(
    'refuses the header %j',
    async (authorization) => {
      const { authenticate } = await setup();
      await expect(authenticate.execute({ authorization })).rejects.toBeInstanceOf(UnauthorizedError);
    },
  );

  it('refuses a revoked token and keeps the first revocation time', async () => {
    const { repositories, channel, create, revoke, authenticate } = await setup();
    const issued = await create.execute({ channelId: channel.id, permissions: ['broadcasts_read'] });
    await expect(revoke.execute({ id: issued.id })).resolves.toEqual({ revoked: issued.id });
    await expect(authenticate.execute({ authorization: `Bearer ${issued.token}` })).rejects.toBeInstanceOf(UnauthorizedError);
    expect(repositories.apiTokens.rows[0]!.revokedAt).toEqual(new Date('2026-11-22T10:00:00Z'));
  });

  it('revoking an unknown token is a not-found', async () => {
    const { revoke } = await setup();
    await expect(revoke.execute({ id: 5 })).rejects.toEqual(new NotFoundError('Token not found'));
  });

  it('requirePermission answers a missing permission like a missing token', () => {
    const principal = { tokenId: 1, channelId: 1, permissions: ['subscribers_read' as const] };
    expect(() => requirePermission(principal, 'subscribers_read')).not.toThrow();
    expect(() => requirePermission(principal, 'subscribers_write')).toThrow(UnauthorizedError);
  });
});
