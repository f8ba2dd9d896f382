import { createTestDatabase, type TestDatabase } from '@mailcast/testkit';
import path from 'node:path';
import { MIGRATIONS_DIRECTORY } from './migrator';

// docs/archive.md, "Channel slugs": existing channels get slugs from their names. The migration
// is taken down and run again by hand on a database holding channels from before it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const migration = require(path.join(MIGRATIONS_DIRECTORY, '20261201000600_broadcast_archive.js')) as {
  up(db: TestDatabase['db']): Promise<void>;
  down(db: TestDatabase['db']): Promise<void>;
};

// The trigger that later fills a missing slug is taken down first and put back after.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const slugDefault = require(path.join(MIGRATIONS_DIRECTORY, '20261201000700_channel_slug_default.js')) as typeof migration;

describe('migration 20261201000600_broadcast_archive', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('derives unique slugs for existing channels in id order, and adds archive (false) to broadcasts', async () => {
    const db = database.db;
    await slugDefault.down(db);
    await migration.down(db);
    const names = ['Weekly News', 'weekly  news!', 'Crème brûlée', '日本語', '---'];
    const ids: number[] = [];
    for (const name of names) ids.push((await db('channels').insert({ name }).returning('id'))[0].id);
    const [b] = await db('broadcasts')
      .insert({ channel_id: ids[0], subject: 'S', track_opens: true, track_clicks: true, created_at: new Date(), updated_at: new Date() })
      .returning('id');

    await migration.up(db);
    await slugDefault.up(db);

    const slugs = await db('channels').whereIn('id', ids).orderBy('id').pluck('slug');
    expect(slugs).toEqual(['weekly-news', 'weekly-news-2', 'creme-brulee', 'channel', 'channel-2']);
    expect((await db('broadcasts').where({ id: b.id }).first()).archive).toBe(false);
    await expect(db('channels').where({ id: ids[1] }).update({ slug: 'weekly-news' })).rejects.toMatchObject({ code: '23505' });
    await expect(db('channels').where({ id: ids[1] }).update({ slug: 'Not A Slug' })).rejects.toMatchObject({ code: '23514' });
  });

  it('gives a channel inserted without a slug channel-<id> (migration 20261201000700)', async () => {
    const db = database.db;
    const [first] = await db('channels').insert({ name: 'Raw insert' }).returning(['id', 'slug']);
    expect(first.slug).toBe(`channel-${first.id}`);
    // A name-derived slug that happens to be channel-<id> already: the trigger picks another.
    const next = Number(first.id) + 1;
    await db('channels').insert({ name: 'Squatter', slug: `channel-${next + 1}` });
    const [second] = await db('channels').insert({ name: 'Raw again' }).returning(['id', 'slug']);
    expect(second.id).toBe(next + 1);
    expect(second.slug).toMatch(new RegExp(`^channel-${second.id}-[0-9a-f]{8}$`));
    const [named] = await db('channels').insert({ name: 'Named', slug: 'named' }).returning('slug');
    expect(named.slug).toBe('named');
  });
});
