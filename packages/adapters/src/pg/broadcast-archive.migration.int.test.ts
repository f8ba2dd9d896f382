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

describe('migration 20261201000600_broadcast_archive', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('derives unique slugs for existing channels in id order, and adds archive (false) to broadcasts', async () => {
    const db = database.db;
    await migration.down(db);
    const names = ['Weekly News', 'weekly  news!', 'Crème brûlée', '日本語', '---'];
    const ids: number[] = [];
    for (const name of names) ids.push((await db('channels').insert({ name }).returning('id'))[0].id);
    const [b] = await db('broadcasts')
      .insert({ channel_id: ids[0], subject: 'S', track_opens: true, track_clicks: true, created_at: new Date(), updated_at: new Date() })
      .returning('id');

    await migration.up(db);

    const slugs = await db('channels').whereIn('id', ids).orderBy('id').pluck('slug');
    expect(slugs).toEqual(['weekly-news', 'weekly-news-2', 'creme-brulee', 'channel', 'channel-2']);
    expect((await db('broadcasts').where({ id: b.id }).first()).archive).toBe(false);
    await expect(db('channels').where({ id: ids[1] }).update({ slug: 'weekly-news' })).rejects.toMatchObject({ code: '23505' });
    await expect(db('channels').where({ id: ids[1] }).update({ slug: 'Not A Slug' })).rejects.toMatchObject({ code: '23514' });
  });
});
