import { createTestDatabase, type TestDatabase } from '@mailcast/testkit';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { channelScopeViolations, parseChannelScopeExceptions, unexcepted } from './channel-scope';

const CAPACITY_DOC = path.resolve(__dirname, '../../../../docs/capacity.md');

/**
 * `npm run check:channel-scope` (and `npm test`): every table the migrations make carries
 * channel_id and every unique key includes it, except the ones docs/capacity.md lists with a
 * reason (docs/capacity.md, "Channel scope"), so the path to Citus distributing by channel stays open.
 */
describe('channel scope of the schema', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('holds for the migrated schema, with only the documented exceptions, none of them stale', async () => {
    const exceptions = parseChannelScopeExceptions(readFileSync(CAPACITY_DOC, 'utf8'));
    const { failing, stale } = unexcepted(await channelScopeViolations(database.db), exceptions);
    // A new table or key without channel_id: add the column, or list it with its reason in docs/capacity.md.
    expect(failing).toEqual([]);
    // An exception nothing needs any more: take it out of docs/capacity.md, so the list stays true.
    expect(stale).toEqual([]);
  });

  it('reports a table without channel_id and a unique key without it, and an exception allows exactly what it names', async () => {
    await database.db.raw('CREATE TABLE scope_probe_global (id bigserial PRIMARY KEY, name text UNIQUE)');
    await database.db.raw('CREATE TABLE scope_probe_scoped (channel_id bigint NOT NULL, id bigserial, code text, PRIMARY KEY (channel_id, id), UNIQUE (code))');
    try {
      const found = (await channelScopeViolations(database.db)).filter((v) => v.table.startsWith('scope_probe_'));
      expect(found).toEqual([
        { table: 'scope_probe_global', key: 'channel_id', reason: 'has no channel_id column' },
        { table: 'scope_probe_global', key: 'scope_probe_global_name_key', reason: 'unique index (name) does not include channel_id' },
        { table: 'scope_probe_global', key: 'scope_probe_global_pkey', reason: 'primary key (id) does not include channel_id' },
        { table: 'scope_probe_scoped', key: 'scope_probe_scoped_code_key', reason: 'unique index (code) does not include channel_id' },
      ]);
      const { failing, stale } = unexcepted(found, [
        { table: 'scope_probe_global', key: '*' },
        { table: 'scope_probe_scoped', key: 'scope_probe_scoped_other_key' },
      ]);
      expect(failing.map((v) => v.key)).toEqual(['scope_probe_scoped_code_key']);
      expect(stale).toEqual([{ table: 'scope_probe_scoped', key: 'scope_probe_scoped_other_key' }]);
    } finally {
      await database.db.raw('DROP TABLE scope_probe_global, scope_probe_scoped');
    }
  });

  it('reads the exception list from its table in the doc, and refuses a row without a reason', () => {
    const doc = [
      '# Capacity',
      '## Exceptions to the channel scope',
      '',
      'Text before.',
      '',
      '| Table | Key | Reason |',
      '|---|---|---|',
      '| `channels` | `*` | the distribution key itself |',
      '| `users` | `users_pkey` | global accounts |',
      '',
      '| `not_read` | `*` | after the table |',
      '## Next',
    ].join('\n');
    expect(parseChannelScopeExceptions(doc)).toEqual([
      { table: 'channels', key: '*' },
      { table: 'users', key: 'users_pkey' },
    ]);
    expect(() => parseChannelScopeExceptions(doc.replace('global accounts', ''))).toThrow('without a table, key and reason');
    expect(() => parseChannelScopeExceptions('# Capacity')).toThrow('no "Exceptions to the channel scope" heading');
  });
});
