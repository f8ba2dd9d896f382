import type { NewSubscriber, OutboxEvent, Subscriber } from '@mailcast/core';
import { createTestDatabase, type TestDatabase } from '@mailcast/testkit';
import type { Knex } from 'knex';
import { PgSubscriberRepository } from './pg-subscriber.repository';

/** The statements a pool runs during `work`. */
async function statementsOn<T>(db: Knex, work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const listener = (query: { sql: string }) => statements.push(query.sql);
  db.on('query', listener);
  try {
    return { result: await work(), statements };
  } finally {
    db.off('query', listener);
  }
}

/** docs/write-path.md, "Subscriber create": the row and its events in one statement. */
describe('PgSubscriberRepository.insertIfAbsentWithEvents', () => {
  let database: TestDatabase;
  let repository: PgSubscriberRepository;
  let channelId: number;
  const now = new Date('2026-11-26T08:00:00.123Z');
  const eventsOf =
    (type: string) =>
    (row: Subscriber): OutboxEvent[] => [
      {
        channelId: row.channelId,
        type: type as OutboxEvent['type'],
        data: { subscriber_id: row.id, email: row.email, custom_data: row.customData },
        createdAt: now,
      },
    ];
  const eventRows = (email: string) =>
    database.db('events').whereRaw(`data->>'email' = ?`, [email]).orderBy('id').select('channel_id', 'type', 'data', 'created_at');

  beforeAll(async () => {
    database = await createTestDatabase();
    [{ id: channelId }] = await database.db('channels').insert({ name: 'create' }).returning('id');
    repository = new PgSubscriberRepository(database.db);
  });
  afterAll(() => database.drop());

  it('writes the row and its event, the event carrying the new id, and answers the row as stored', async () => {
    const seen: Subscriber[] = [];
    const created = await repository.insertIfAbsentWithEvents(
      { channelId, email: 'new@example.com', requiresConfirmation: false, firstName: 'Ann', tags: ['a'], customData: { plan: 'pro', n: 1 } },
      now,
      (row) => (seen.push(row), eventsOf('subscriber.created')(row)),
    );
    expect(created).not.toBeNull();
    const stored = await repository.findByEmail(channelId, 'new@example.com');
    expect(created).toEqual(stored);
    // The events were computed from the row as written, before its id existed.
    expect(seen).toEqual([{ ...stored, id: 0 }]);
    expect(await eventRows('new@example.com')).toEqual([
      {
        channel_id: channelId,
        type: 'subscriber.created',
        data: { subscriber_id: created!.id, email: 'new@example.com', custom_data: { plan: 'pro', n: 1 } },
        created_at: now,
      },
    ]);
  });

  it('writes nothing for an existing address and answers null', async () => {
    const first = await repository.insertIfAbsentWithEvents(
      { channelId, email: 'twice@example.com', requiresConfirmation: false },
      now,
      eventsOf('subscriber.created'),
    );
    const second = await repository.insertIfAbsentWithEvents(
      { channelId, email: 'twice@example.com', requiresConfirmation: false, firstName: 'Other' },
      now,
      eventsOf('subscriber.created'),
    );
    expect(second).toBeNull();
    expect(await repository.findByEmail(channelId, 'twice@example.com')).toEqual(first);
    expect(await eventRows('twice@example.com')).toHaveLength(1);
  });

  it('writes no row when its event cannot be written (one statement: both or neither)', async () => {
    // events.type is NOT NULL: the event's insert fails, and with it the subscriber's.
    await expect(
      repository.insertIfAbsentWithEvents({ channelId, email: 'atomic@example.com', requiresConfirmation: false }, now, eventsOf(null as unknown as string)),
    ).rejects.toThrow(/null value in column "type"/);
    expect(await repository.findByEmail(channelId, 'atomic@example.com')).toBeNull();
    expect(await eventRows('atomic@example.com')).toHaveLength(0);
  });

  it('records several events, in order, and none when given none', async () => {
    const created = await repository.insertIfAbsentWithEvents({ channelId, email: 'two@example.com', requiresConfirmation: false }, now, (row) => [
      ...eventsOf('subscriber.created')(row),
      ...eventsOf('subscriber.subscribed')(row),
    ]);
    expect((await eventRows('two@example.com')).map((e) => [e.type, e.data.subscriber_id])).toEqual([
      ['subscriber.created', created!.id],
      ['subscriber.subscribed', created!.id],
    ]);
    expect(await repository.insertIfAbsentWithEvents({ channelId, email: 'none@example.com', requiresConfirmation: false }, now, () => [])).not.toBeNull();
    expect(await eventRows('none@example.com')).toHaveLength(0);
  });
});

/** docs/write-path.md, "Writes in batches": the creates of one turn of the event loop, one statement. */
describe('PgSubscriberRepository.insertIfAbsentWithEvents, several at once', () => {
  let database: TestDatabase;
  let repository: PgSubscriberRepository;
  let channelId: number;
  let otherChannelId: number;
  const now = new Date('2026-11-26T09:00:00.789Z');
  const created = (row: Subscriber): OutboxEvent[] => [
    { channelId: row.channelId, type: 'subscriber.created', data: { email: row.email, first_name: row.firstName, tags: row.tags }, createdAt: now },
  ];
  const fresh = (email: string, extra: Partial<NewSubscriber> = {}): NewSubscriber => ({ channelId, email, requiresConfirmation: false, ...extra });
  const statementsDuring = <T>(work: () => Promise<T>) => statementsOn(database.db, work);
  const eventsOf = (email: string) => database.db('events').whereRaw(`data->>'email' = ?`, [email]).orderBy('id').select('channel_id', 'type', 'data');

  beforeAll(async () => {
    database = await createTestDatabase();
    [{ id: channelId }, { id: otherChannelId }] = await database
      .db('channels')
      .insert([{ name: 'batch' }, { name: 'other' }])
      .returning('id');
    repository = new PgSubscriberRepository(database.db);
  });
  afterAll(() => database.drop());

  it('writes the creates of one turn in one statement, each row with its own event, and answers each its row', async () => {
    const emails = Array.from({ length: 30 }, (_, i) => `batch${i}@example.com`);
    const { result, statements } = await statementsDuring(() =>
      Promise.all(
        emails.map((email, i) => repository.insertIfAbsentWithEvents(fresh(email, { firstName: `N${i}`, tags: [`t${i}`], customData: { i } }), now, created)),
      ),
    );
    expect(statements).toHaveLength(1);
    for (const [i, email] of emails.entries()) {
      const stored = await repository.findByEmail(channelId, email);
      expect(result[i]).toEqual(stored);
      expect(stored).toMatchObject({
        firstName: `N${i}`,
        tags: [`t${i}`],
        customData: { i },
        createdAt: now,
        subscribedAt: now,
        isActive: true,
        source: 'api_subscription',
      });
      expect(await eventsOf(email)).toEqual([
        { channel_id: channelId, type: 'subscriber.created', data: { subscriber_id: stored!.id, email, first_name: `N${i}`, tags: [`t${i}`] } },
      ]);
    }
  });

  it('answers null for an address that exists, or that an earlier create of the same turn takes, with one row and one event', async () => {
    const first = await repository.insertIfAbsentWithEvents(fresh('exists@example.com', { firstName: 'First' }), now, created);
    const [again, one, two, elsewhere, last] = await Promise.all([
      repository.insertIfAbsentWithEvents(fresh('exists@example.com', { firstName: 'Again' }), now, created),
      repository.insertIfAbsentWithEvents(fresh('same@example.com', { firstName: 'One' }), now, created),
      repository.insertIfAbsentWithEvents(fresh('same@example.com', { firstName: 'Two' }), now, created),
      repository.insertIfAbsentWithEvents(fresh('same@example.com', { channelId: otherChannelId, firstName: 'Elsewhere' }), now, created),
      repository.insertIfAbsentWithEvents(fresh('last@example.com'), now, created),
    ]);
    expect(again).toBeNull();
    expect(await repository.findByEmail(channelId, 'exists@example.com')).toEqual(first);
    expect(await eventsOf('exists@example.com')).toHaveLength(1);
    // The first create of an address in a turn makes it; the repeat finds it taken.
    expect(one).toMatchObject({ email: 'same@example.com', firstName: 'One' });
    expect(two).toBeNull();
    expect(await repository.findByEmail(channelId, 'same@example.com')).toEqual(one);
    // The same address in another channel is another subscriber.
    expect(elsewhere).toMatchObject({ channelId: otherChannelId, firstName: 'Elsewhere' });
    expect((await eventsOf('same@example.com')).map((e) => [e.channel_id, e.data.first_name, e.data.subscriber_id])).toEqual([
      [channelId, 'One', one!.id],
      [otherChannelId, 'Elsewhere', elsewhere!.id],
    ]);
    expect(last).toMatchObject({ email: 'last@example.com' });
  });

  it("keeps one create's failure its own: the batch is retried one create at a time", async () => {
    const outcomes = await Promise.allSettled([
      repository.insertIfAbsentWithEvents(fresh('ok1@example.com'), now, created),
      // events.type is NOT NULL: this create's statement fails, and the batch's with it.
      repository.insertIfAbsentWithEvents(fresh('bad@example.com'), now, (row) => [{ ...created(row)[0]!, type: null as unknown as 'subscriber.created' }]),
      repository.insertIfAbsentWithEvents(fresh('ok2@example.com'), now, created),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ message: expect.stringMatching(/null value in column "type"/) });
    expect(await repository.findByEmail(channelId, 'bad@example.com')).toBeNull();
    expect(await eventsOf('bad@example.com')).toHaveLength(0);
    for (const email of ['ok1@example.com', 'ok2@example.com']) {
      expect(await repository.findByEmail(channelId, email)).toEqual(
        (outcomes.find((o) => o.status === 'fulfilled' && o.value?.email === email) as PromiseFulfilledResult<Subscriber>).value,
      );
      expect(await eventsOf(email)).toHaveLength(1);
    }
  });

  it('two processes creating the same new addresses in opposite orders both finish in one statement each (no deadlock)', async () => {
    // Two repositories stand for two api processes. Rows go in in address order, so their
    // locks are taken in one order: a deadlock would fail a statement and split it into singles.
    const second = new PgSubscriberRepository(database.db);
    const emails = Array.from({ length: 20 }, (_, i) => `both${String(i).padStart(2, '0')}@example.com`);
    for (let round = 0; round < 5; round++) {
      const mine = emails.map((e) => `r${round}${e}`);
      const { result, statements } = await statementsDuring(() =>
        Promise.all([
          Promise.all(mine.map((email) => repository.insertIfAbsentWithEvents(fresh(email, { firstName: 'A' }), now, created))),
          Promise.all([...mine].reverse().map((email) => second.insertIfAbsentWithEvents(fresh(email, { firstName: 'B' }), now, created))),
        ]),
      );
      expect(statements).toHaveLength(2);
      const [a, b] = result;
      for (const [i, email] of mine.entries()) {
        // Exactly one of the two made each address.
        expect([a[i], b[mine.length - 1 - i]].filter((row) => row !== null)).toHaveLength(1);
        expect(await eventsOf(email)).toHaveLength(1);
      }
    }
  });

  it('in a transaction, writes at once on its connection and rolls back with it', async () => {
    await expect(
      database.db.transaction(async (trx) => {
        const inside = new PgSubscriberRepository(trx);
        expect(await inside.insertIfAbsentWithEvents(fresh('rolled@example.com'), now, created)).toMatchObject({ email: 'rolled@example.com' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await repository.findByEmail(channelId, 'rolled@example.com')).toBeNull();
    expect(await eventsOf('rolled@example.com')).toHaveLength(0);
  });
});

/** docs/write-path.md, "Subscriber changes": a change saved only if the row has not moved on. */
describe('PgSubscriberRepository.saveIfVersion', () => {
  let database: TestDatabase;
  let repository: PgSubscriberRepository;
  let channelId: number;
  const now = new Date('2026-11-26T08:30:00.456Z');
  const updated = (row: Subscriber): OutboxEvent[] => [
    { channelId: row.channelId, type: 'subscriber.updated', data: { email: row.email, first_name: row.firstName }, createdAt: now },
  ];
  const eventCount = async () => Number((await database.db('events').count<{ n: string }[]>('* as n'))[0]!.n);

  beforeAll(async () => {
    database = await createTestDatabase();
    [{ id: channelId }] = await database.db('channels').insert({ name: 'change' }).returning('id');
    repository = new PgSubscriberRepository(database.db);
    for (const email of ['v@example.com', 'taken@example.com']) await repository.insertIfAbsent({ channelId, email, requiresConfirmation: false }, now);
  });
  afterAll(() => database.drop());

  it('saves the change and its event when the row is at the version read; the version then moves on', async () => {
    const read = (await repository.findVersioned(channelId, 'v@example.com'))!;
    expect(read.subscriber).toEqual(await repository.findByEmail(channelId, 'v@example.com'));
    const saved = await repository.saveIfVersion({ ...read.subscriber, firstName: 'Vera' }, read.version, now, updated);
    expect(saved).toEqual({ ...read.subscriber, firstName: 'Vera', updatedAt: now });
    expect(await repository.findByEmail(channelId, 'v@example.com')).toEqual(saved);
    const events = await database.db('events').where({ type: 'subscriber.updated' }).select('data');
    expect(events).toEqual([{ data: { subscriber_id: read.subscriber.id, email: 'v@example.com', first_name: 'Vera' } }]);
    const again = (await repository.findVersioned(channelId, 'v@example.com'))!;
    expect(again.version).not.toBe(read.version);

    // The version read before that save is stale: nothing is written.
    const before = await eventCount();
    expect(await repository.saveIfVersion({ ...read.subscriber, firstName: 'Stale' }, read.version, now, updated)).toBeNull();
    expect((await repository.findByEmail(channelId, 'v@example.com'))!.firstName).toBe('Vera');
    expect(await eventCount()).toBe(before);
  });

  it('a change by any other writer (a locked save in a transaction) makes the version stale', async () => {
    const read = (await repository.findVersioned(channelId, 'v@example.com'))!;
    await database.db.transaction(async (trx) => {
      const other = new PgSubscriberRepository(trx);
      const locked = (await other.findByEmail(channelId, 'v@example.com', { forUpdate: true }))!;
      await other.save({ ...locked, lastName: 'Other' }, now);
    });
    expect(await repository.saveIfVersion({ ...read.subscriber, firstName: 'Lost' }, read.version, now, updated)).toBeNull();
    expect(await repository.findByEmail(channelId, 'v@example.com')).toMatchObject({ firstName: 'Vera', lastName: 'Other' });
  });

  it('an address another subscriber has is the email validation error, with nothing written', async () => {
    const read = (await repository.findVersioned(channelId, 'v@example.com'))!;
    const before = await eventCount();
    await expect(repository.saveIfVersion({ ...read.subscriber, email: 'taken@example.com' }, read.version, now, updated)).rejects.toMatchObject({
      fields: { email: ['has already been taken'] },
    });
    expect(await repository.findByEmail(channelId, 'v@example.com')).toEqual(read.subscriber);
    expect(await eventCount()).toBe(before);
  });
});

/** docs/write-path.md, "Writes in batches": the unlocked reads and updates of one turn, one statement each. */
describe('PgSubscriberRepository.findVersioned and saveIfVersion, several at once', () => {
  let database: TestDatabase;
  let repository: PgSubscriberRepository;
  let channelId: number;
  let otherChannelId: number;
  const now = new Date('2026-11-26T09:30:00.321Z');
  const updated = (row: Subscriber): OutboxEvent[] => [
    { channelId: row.channelId, type: 'subscriber.updated', data: { email: row.email, first_name: row.firstName }, createdAt: now },
  ];
  const emails = Array.from({ length: 30 }, (_, i) => `change${String(i).padStart(2, '0')}@example.com`);
  const statementsDuring = <T>(work: () => Promise<T>) => statementsOn(database.db, work);
  const updatesOf = (id: number) =>
    database
      .db('events')
      .where({ type: 'subscriber.updated' })
      .whereRaw(`(data->>'subscriber_id')::bigint = ?`, [id])
      .orderBy('id')
      .select('channel_id', 'data');
  /** Reads each address, then saves `change` of it: the two round trips of a change without a lock. */
  const changeEach = (repo: PgSubscriberRepository, addresses: string[], change: (s: Subscriber) => Subscriber, channel = channelId) =>
    Promise.all(
      addresses.map(async (email) => {
        const read = (await repo.findVersioned(channel, email))!;
        return repo.saveIfVersion(change(read.subscriber), read.version, now, updated);
      }),
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    [{ id: channelId }, { id: otherChannelId }] = await database
      .db('channels')
      .insert([{ name: 'changes' }, { name: 'other' }])
      .returning('id');
    repository = new PgSubscriberRepository(database.db);
    for (const email of [...emails, 'taken@example.com']) await repository.insertIfAbsent({ channelId, email, requiresConfirmation: false }, now);
    await repository.insertIfAbsent({ channelId: otherChannelId, email: emails[0]!, requiresConfirmation: false }, now);
    // Enough other rows that PostgreSQL finds each row of a batch by index, in the batch's order,
    // as it does at production sizes (on a handful of rows it scans the table in one order).
    await database.db.raw(
      `INSERT INTO subscribers (channel_id, email, source, subscribed_at, requires_confirmation, is_active, tags, custom_data, created_at, updated_at)
       SELECT ?, 'filler' || n || '@example.com', 'api_subscription', now(), false, true, '{}', '{}', now(), now() FROM generate_series(1, 50000) AS n`,
      [otherChannelId],
    );
    await database.db.raw('ANALYZE subscribers');
  });
  afterAll(() => database.drop());

  it('reads the turn in one statement and saves it in one, each row with its own event', async () => {
    const { result, statements } = await statementsDuring(() => changeEach(repository, emails, (s) => ({ ...s, firstName: `F-${s.email}`, tags: [s.email] })));
    expect(statements).toHaveLength(2);
    for (const [i, email] of emails.entries()) {
      const stored = (await repository.findByEmail(channelId, email))!;
      expect(result[i]).toEqual(stored);
      expect(stored).toMatchObject({ firstName: `F-${email}`, tags: [email], updatedAt: now });
      expect(await updatesOf(stored.id)).toEqual([{ channel_id: channelId, data: { subscriber_id: stored.id, email, first_name: `F-${email}` } }]);
    }
    // The same address in another channel was neither read nor written.
    expect(await repository.findByEmail(otherChannelId, emails[0]!)).toMatchObject({ firstName: null });
  });

  it('answers null for an unknown address, and for a row changed since it was read, writing nothing for it', async () => {
    const stale = (await repository.findVersioned(channelId, emails[1]!))!;
    await repository.saveIfVersion({ ...stale.subscriber, lastName: 'Moved' }, stale.version, now, updated);
    const fresh = (await repository.findVersioned(channelId, emails[2]!))!;
    const [missing, staleSave, freshSave] = await Promise.all([
      repository.findVersioned(channelId, 'nobody@example.com'),
      repository.saveIfVersion({ ...stale.subscriber, firstName: 'Stale' }, stale.version, now, updated),
      repository.saveIfVersion({ ...fresh.subscriber, firstName: 'Fresh' }, fresh.version, now, updated),
    ]);
    expect(missing).toBeNull();
    expect(staleSave).toBeNull();
    expect(await repository.findByEmail(channelId, emails[1]!)).toMatchObject({ firstName: `F-${emails[1]}`, lastName: 'Moved' });
    expect((await updatesOf(stale.subscriber.id)).map((e) => e.data.first_name)).toEqual([`F-${emails[1]}`, `F-${emails[1]}`]);
    expect(freshSave).toMatchObject({ firstName: 'Fresh' });
  });

  it('two saves of one row at one version in a turn: one applies, the other finds its version stale', async () => {
    // They go in separate statements (a batch holds a row once), on two connections in no set order.
    const read = (await repository.findVersioned(channelId, emails[3]!))!;
    const saves = await Promise.all(
      ['First', 'Second'].map((firstName) => repository.saveIfVersion({ ...read.subscriber, firstName }, read.version, now, updated)),
    );
    const applied = saves.filter((row) => row !== null);
    expect(applied).toHaveLength(1);
    expect(await repository.findByEmail(channelId, emails[3]!)).toEqual(applied[0]);
    expect(await updatesOf(read.subscriber.id)).toHaveLength(2);
  });

  it("keeps one save's failure its own: an address taken fails that save alone", async () => {
    const outcomes = await Promise.allSettled(
      [emails[4]!, emails[5]!, emails[6]!].map(async (email, i) => {
        const read = (await repository.findVersioned(channelId, email))!;
        return repository.saveIfVersion(
          { ...read.subscriber, ...(i === 1 ? { email: 'taken@example.com' } : { firstName: 'Kept' }) },
          read.version,
          now,
          updated,
        );
      }),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ fields: { email: ['has already been taken'] } });
    expect(await repository.findByEmail(channelId, emails[5]!)).toMatchObject({ firstName: `F-${emails[5]}` });
    for (const email of [emails[4]!, emails[6]!]) expect(await repository.findByEmail(channelId, email)).toMatchObject({ firstName: 'Kept' });
  });

  it('two processes saving the same rows in opposite orders finish in one statement each (no deadlock)', async () => {
    const second = new PgSubscriberRepository(database.db);
    for (let round = 0; round < 5; round++) {
      const reads = await Promise.all(emails.map((email) => repository.findVersioned(channelId, email)));
      const { result, statements } = await statementsDuring(() =>
        Promise.all([
          Promise.all(reads.map((r) => repository.saveIfVersion({ ...r!.subscriber, lastName: `A${round}` }, r!.version, now, updated))),
          Promise.all([...reads].reverse().map((r) => second.saveIfVersion({ ...r!.subscriber, lastName: `B${round}` }, r!.version, now, updated))),
        ]),
      );
      // A deadlock would fail a statement and split it into one save each.
      expect(statements).toHaveLength(2);
      const [a, b] = result;
      for (let i = 0; i < emails.length; i++) {
        // Both read the same version: exactly one of the two saves applied.
        expect([a[i], b[emails.length - 1 - i]].filter((row) => row !== null)).toHaveLength(1);
      }
    }
  });

  it('in a transaction, reads and saves at once on its connection and rolls back with it', async () => {
    await expect(
      database.db.transaction(async (trx) => {
        const inside = new PgSubscriberRepository(trx);
        const read = (await inside.findVersioned(channelId, emails[7]!))!;
        expect(await inside.saveIfVersion({ ...read.subscriber, firstName: 'Rolled' }, read.version, now, updated)).toMatchObject({ firstName: 'Rolled' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await repository.findByEmail(channelId, emails[7]!)).toMatchObject({ firstName: `F-${emails[7]}` });
  });
});
