import { ConfigError } from '../config';
import { resolveDatabase, type DevelopmentDatabase } from './resolve-database';

const notInstalled = (code: string) => async (): Promise<DevelopmentDatabase> => {
  throw Object.assign(new Error("Cannot find module '@mailcast/devkit'"), { code });
};

describe('resolveDatabase (docs/operations.md, Running it)', () => {
  it('uses DATABASE_URL without loading the devkit', async () => {
    const loadDevkit = jest.fn(notInstalled('MODULE_NOT_FOUND'));
    const database = await resolveDatabase('postgres://u:p@db:5432/mailcast', loadDevkit);
    expect(database.url).toBe('postgres://u:p@db:5432/mailcast');
    await database.stop();
    expect(loadDevkit).not.toHaveBeenCalled();
  });

  it('without DATABASE_URL, starts the embedded database through the devkit, with the environment', async () => {
    const stop = jest.fn(async () => undefined);
    const devkit = { resolveDatabase: jest.fn(async () => ({ url: 'postgres://embedded/mailcast', stop })) };
    const env = { MAILCAST_EMBEDDED_PG_PORT: '5555' };
    const database = await resolveDatabase(undefined, async () => devkit, env);
    expect(devkit.resolveDatabase).toHaveBeenCalledWith(undefined, env);
    expect(database.url).toBe('postgres://embedded/mailcast');
  });

  it.each(['MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND'])('says DATABASE_URL is required where the devkit is not installed (%s)', async (code) => {
    const attempt = resolveDatabase(undefined, notInstalled(code));
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(attempt).rejects.toThrow('"DATABASE_URL" is required');
  });

  it('lets any other failure of the devkit through', async () => {
    const attempt = resolveDatabase(undefined, async () => {
      throw new Error('port taken');
    });
    await expect(attempt).rejects.toThrow('port taken');
  });
});
