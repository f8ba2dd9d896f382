import { hashApiToken } from '@mailcast/domain';
import pg from 'pg';
import { createTestDatabase, eventually, Fixtures, throwawaySecretBox, type TestDatabase } from '@mailcast/testkit';
import { createBoss } from '../queue/boss';
import { CachedApiTokenRepository, PgApiTokenRepository } from './pg-api-token.repository';
import { PgTransactor } from './pg-transactor';

describe('CachedApiTokenRepository', () => {
  let database: TestDatabase;
  let fixtures: Fixtures;
  let channelId: number;
  const boss = () => createBoss(database.url, 'api');

  beforeAll(async () => {
    database = await createTestDatabase();
    fixtures = new Fixtures(database.db, boss());
    channelId = (await fixtures.aChannel()).id;
  });
  afterAll(() => database.drop());

  const aToken = async () => {
    const token = await fixtures.aToken(channelId);
    const hash = hashApiToken(token);
    const { id } = await database.db('api_tokens').where({ token_hash: hash }).first('id');
    return { hash, id: id as number };
  };
  const revokeByHand = (id: number) => database.db('api_tokens').where({ id }).update({ revoked_at: new Date() });

  it('does not keep the answer of a lookup that was in flight when a revocation was announced', async () => {
    const pg = new PgApiTokenRepository(database.db);
    const { hash, id } = await aToken();
    const witness = await aToken();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let read: () => void = () => undefined;
    const wasRead = new Promise<void>((resolve) => (read = resolve));
    // The row is read before the revocation, the answer comes back after it was announced.
    const slow: PgApiTokenRepository = Object.assign(Object.create(pg) as PgApiTokenRepository, {
      findByHash: async (h: Uint8Array) => {
        const record = await pg.findByHash(h);
        if (Buffer.from(h).equals(hash)) {
          read();
          await gate;
        }
        return record;
      },
    });
    const cache = new CachedApiTokenRepository(slow, database.db, { ttlMs: 60_000, maxEntries: 100 });
    await cache.start();
    expect(cache.active).toBe(true);
    // The witness is kept in memory, then revoked by hand (unannounced): it reads as valid until
    // the memory is emptied, which tells when the announcement below has been heard.
    expect((await cache.findByHash(witness.hash))?.revokedAt).toBeNull();
    await revokeByHand(witness.id);
    expect((await cache.findByHash(witness.hash))?.revokedAt).toBeNull();

    const inFlight = cache.findByHash(hash);
    await wasRead;
    await new PgTransactor(database.db, boss(), throwawaySecretBox()).run((r) => r.apiTokens.revoke(id, new Date()));
    await eventually(async () => ((await cache.findByHash(witness.hash))?.revokedAt ? true : undefined), 1_000, 10);
    release();
    expect((await inFlight)?.revokedAt).toBeNull();

    const after = await cache.findByHash(hash);
    expect(after?.revokedAt).toEqual(expect.any(Date));
    await cache.close();
    expect(cache.active).toBe(false);
  });

  it('keeps at most maxEntries tokens, the oldest leaving first, and never an unknown one', async () => {
    const cache = new CachedApiTokenRepository(new PgApiTokenRepository(database.db), database.db, { ttlMs: 60_000, maxEntries: 2 });
    await cache.start();
    const [first, second, third] = [await aToken(), await aToken(), await aToken()];
    for (const t of [first, second, third]) expect((await cache.findByHash(t.hash))?.revokedAt).toBeNull();
    for (const t of [first, second, third]) await revokeByHand(t.id);
    expect((await cache.findByHash(first.hash))?.revokedAt).toEqual(expect.any(Date));
    expect((await cache.findByHash(third.hash))?.revokedAt).toBeNull();
    expect(await cache.findByHash(hashApiToken('mc_unknown'))).toBeNull();
    await cache.close();
  });

  it('announces a revocation only when it commits', async () => {
    // The cache's own connection also hears a marker announced after the rollback. A session
    // gets notifications in commit order: once the marker is heard, an announcement of the
    // rolled-back revocation would have been heard before it.
    let listener: pg.Client | undefined;
    const connect = () => (listener = new pg.Client({ connectionString: database.url }));
    const cache = new CachedApiTokenRepository(new PgApiTokenRepository(database.db), database.db, { ttlMs: 60_000, maxEntries: 100, connect });
    await cache.start();
    await listener!.query('LISTEN mailcast_test_marker');
    const markerHeard = new Promise<void>((resolve) => listener!.on('notification', (m) => m.channel === 'mailcast_test_marker' && resolve()));
    const kept = await aToken();
    const other = await aToken();
    expect((await cache.findByHash(kept.hash))?.revokedAt).toBeNull();
    await revokeByHand(kept.id);
    // A revocation rolled back announces nothing: the hand-revoked token stays served from memory.
    await expect(
      new PgTransactor(database.db, boss(), throwawaySecretBox()).run(async (r) => {
        await r.apiTokens.revoke(other.id, new Date());
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await database.db.raw('NOTIFY mailcast_test_marker');
    await markerHeard;
    expect((await cache.findByHash(kept.hash))?.revokedAt).toBeNull();
    // A committed one empties the memory.
    await new PgTransactor(database.db, boss(), throwawaySecretBox()).run((r) => r.apiTokens.revoke(other.id, new Date()));
    await eventually(async () => ((await cache.findByHash(kept.hash))?.revokedAt ? true : undefined), 1_000, 10);
    await cache.close();
  });
  it("keeps a token's last four characters and its last use, written at most once a minute (docs/discovery.md)", async () => {
    const repository = new PgApiTokenRepository(database.db);
    const token = await fixtures.aToken(channelId);
    const { id } = await database
      .db('api_tokens')
      .where({ token_hash: hashApiToken(token) })
      .first('id');
    const details = await repository.findById(id as number);
    expect(details).toMatchObject({ id, prefix: token.slice(0, 9), suffix: token.slice(-4), lastUsedAt: null });

    const at = new Date('2026-12-01T10:00:00.000Z');
    await repository.markUsed(id as number, at);
    await repository.markUsed(id as number, new Date(at.getTime() + 59_999));
    expect((await repository.findById(id as number))?.lastUsedAt).toEqual(at);
    await repository.markUsed(id as number, new Date(at.getTime() + 60_000));
    expect((await repository.findById(id as number))?.lastUsedAt).toEqual(new Date(at.getTime() + 60_000));
    // Another process that wrote later is never moved back.
    await repository.markUsed(id as number, at);
    expect((await repository.findById(id as number))?.lastUsedAt).toEqual(new Date(at.getTime() + 60_000));
    expect(await repository.findById(999_999)).toBeNull();
  });

  it('spares the database a write for a use it recorded less than a minute ago', async () => {
    const inner = new PgApiTokenRepository(database.db);
    const writes: Date[] = [];
    const counting: PgApiTokenRepository = Object.assign(Object.create(inner) as PgApiTokenRepository, {
      markUsed: async (tokenId: number, at: Date) => {
        writes.push(at);
        await inner.markUsed(tokenId, at);
      },
    });
    const cache = new CachedApiTokenRepository(counting, database.db, { ttlMs: 60_000, maxEntries: 100 });
    const { id } = await aToken();
    const at = new Date('2026-12-01T12:00:00.000Z');
    for (const offset of [0, 1_000, 30_000, 59_000]) await cache.markUsed(id, new Date(at.getTime() + offset));
    expect(writes).toEqual([at]);
    await cache.markUsed(id, new Date(at.getTime() + 60_000));
    expect(writes).toHaveLength(2);
    await cache.close();
  });
});
