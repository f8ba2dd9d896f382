import { channelSlug } from '@mailcast/domain';
import path from 'node:path';
import { MIGRATIONS_DIRECTORY } from './migrator';

// The migration derives existing channels' slugs with its own copy of the rule (a migration
// must not depend on built code); both must give the same slug (docs/archive.md).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const migration = require(path.join(MIGRATIONS_DIRECTORY, '20261201000600_broadcast_archive.js')) as { channelSlug: (name: string) => string };

describe('channel slugs: the migration and the domain agree', () => {
  test.each(['Weekly News', '  Crème brûlée & Co.  ', '---', '日本語', 'a'.repeat(70), `${'a'.repeat(59)} b`, 'Test channel'])('%j', (name) => {
    expect(migration.channelSlug(name)).toBe(channelSlug(name));
  });
});
