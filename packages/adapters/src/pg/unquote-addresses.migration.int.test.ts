import { createTestDatabase, type TestDatabase } from '@mailcast/testkit';
import path from 'node:path';
import { MIGRATIONS_DIRECTORY } from './migrator';

// docs/subscribers.md, "One form of an address": rows stored before the rule. The migration is
// run again by hand on a migrated database that holds such rows.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const migration = require(path.join(MIGRATIONS_DIRECTORY, '20261128100001_unquote_addresses.js')) as {
  up(db: TestDatabase['db']): Promise<void>;
};

describe('migration 20261128100001_unquote_addresses', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('unquotes what may be unquoted in suppressions, subscribers and unsent transactionals, and leaves the rest', async () => {
    const db = database.db;
    const [a] = await db('channels').insert({ name: 'A' }).returning('id');
    const [b] = await db('channels').insert({ name: 'B' }).returning('id');
    const at = new Date('2026-01-02T03:04:05Z');
    await db('suppressions').insert([
      { channel_id: a.id, email: '"blocked"@example.com', reason: 'bounce', created_at: at },
      { channel_id: a.id, email: 'twice@example.com', reason: 'manual', created_at: at },
      { channel_id: a.id, email: '"twice"@example.com', reason: 'complaint', created_at: at },
      { channel_id: null, email: '"everywhere"@example.com', reason: 'manual', created_at: at },
      { channel_id: a.id, email: '"needs quotes"@example.com', reason: 'manual', created_at: at },
    ]);
    const subscribers = await db('subscribers')
      .insert([
        { channel_id: a.id, email: '"blocked"@example.com' },
        { channel_id: b.id, email: 'dup@example.com' },
        { channel_id: b.id, email: '"dup"@example.com' },
        { channel_id: b.id, email: '"a b"@example.com' },
      ])
      .returning(['id', 'email']);
    const idOf = (email: string) => subscribers.find((s: { email: string }) => s.email === email).id;
    const transactional = (to: string, status: string) => ({
      channel_id: a.id,
      subscriber_id: idOf('"blocked"@example.com'),
      to_email: to,
      subject: 'S',
      body: 'B',
      status,
      created_at: at,
      updated_at: at,
    });
    await db('transactionals').insert([transactional('"blocked"@example.com', 'queued'), transactional('"blocked"@example.com', 'sent')]);

    await migration.up(db);

    expect(await db('suppressions').orderBy(['email', 'channel_id']).select('channel_id', 'email', 'reason')).toEqual([
      { channel_id: a.id, email: '"needs quotes"@example.com', reason: 'manual' },
      { channel_id: a.id, email: 'blocked@example.com', reason: 'bounce' },
      { channel_id: null, email: 'everywhere@example.com', reason: 'manual' },
      // The entry already there is kept, with its reason.
      { channel_id: a.id, email: 'twice@example.com', reason: 'manual' },
    ]);
    expect(await db('subscribers').orderBy('id').select('id', 'email', 'is_active')).toEqual([
      { id: idOf('"blocked"@example.com'), email: 'blocked@example.com', is_active: true },
      { id: idOf('dup@example.com'), email: 'dup@example.com', is_active: true },
      // The same mailbox twice in one channel: the quoted row is switched off, not merged.
      { id: idOf('"dup"@example.com'), email: '"dup"@example.com', is_active: false },
      { id: idOf('"a b"@example.com'), email: '"a b"@example.com', is_active: true },
    ]);
    expect(await db('transactionals').orderBy('id').select('status', 'to_email')).toEqual([
      { status: 'queued', to_email: 'blocked@example.com' },
      { status: 'sent', to_email: '"blocked"@example.com' },
    ]);
  });
});
