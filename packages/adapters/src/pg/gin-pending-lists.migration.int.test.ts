import { createTestDatabase, type TestDatabase } from '@mailcast/testkit';
import path from 'node:path';
import { MIGRATIONS_DIRECTORY } from './migrator';

// docs/write-path.md, "GIN pending lists".
// eslint-disable-next-line @typescript-eslint/no-require-imports
const migration = require(path.join(MIGRATIONS_DIRECTORY, '20261205300000_gin_pending_lists.js')) as {
  up(db: TestDatabase['db']): Promise<void>;
  down(db: TestDatabase['db']): Promise<void>;
};

describe('migration 20261205300000_gin_pending_lists', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  /** Every GIN index on subscribers, with its storage options. */
  const ginIndexes = async () => {
    const { rows } = await database.db.raw<{ rows: Array<{ name: string; options: string[] | null }> }>(`
      SELECT c.relname AS name, c.reloptions AS options
        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
       WHERE i.indrelid = 'subscribers'::regclass AND am.amname = 'gin'
       ORDER BY c.relname`);
    return rows;
  };

  it('gives every GIN index of subscribers a 256 kB pending list, and down takes it back', async () => {
    const migrated = await ginIndexes();
    expect(migrated.map((i) => i.name)).toEqual(['subscribers_custom_data', 'subscribers_email_trgm', 'subscribers_tags']);
    for (const index of migrated) expect(index.options).toEqual(['gin_pending_list_limit=256']);

    await migration.down(database.db);
    for (const index of await ginIndexes()) expect(index.options).toBeNull();
    await migration.up(database.db);
    expect(await ginIndexes()).toEqual(migrated);
  });
});
