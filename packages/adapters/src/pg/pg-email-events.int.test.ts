import { createTestDatabase, eventually, type TestDatabase } from '@mailcast/testkit';
import type { EmailEventKind } from '@mailcast/core';
import { AGGREGATE_SHARDS, PgEmailEvents, rebuildEmailEventAggregates } from './pg-email-events';

describe('PgEmailEvents: one row per occurrence, first occurrence per recipient told apart', () => {
  let database: TestDatabase;
  let events: PgEmailEvents;
  let ids: { channelId: number; broadcastId: number; recipients: number[]; subscribers: number[]; links: number[] };

  beforeAll(async () => {
    database = await createTestDatabase();
    events = new PgEmailEvents(database.db);
    const db = database.db;
    const [channel] = await db('channels').insert({ name: 'c' }).returning('id');
    const channelId = (channel as { id: number }).id;
    const [broadcast] = await db('broadcasts').insert({ channel_id: channelId, subject: 's', track_opens: true, track_clicks: true }).returning('id');
    const broadcastId = (broadcast as { id: number }).id;
    const subscribers = (
      await db('subscribers')
        .insert([
          { channel_id: channelId, email: 'a@example.com' },
          { channel_id: channelId, email: 'b@example.com' },
        ])
        .returning('id')
    ).map((r: { id: number }) => r.id);
    const recipients = (
      await db('broadcast_recipients')
        .insert(subscribers.map((s, i) => ({ broadcast_id: broadcastId, subscriber_id: s, message_id: `<m${i}@t>` })))
        .returning('id')
    ).map((r: { id: number }) => r.id);
    const links = (
      await db('broadcast_links')
        .insert([
          { broadcast_id: broadcastId, identifier: 'l1', url: 'https://a.example/' },
          { broadcast_id: broadcastId, identifier: 'l2', url: 'https://b.example/' },
        ])
        .returning('id')
    ).map((r: { id: number }) => r.id);
    ids = { channelId, broadcastId, recipients, subscribers, links };
  });
  afterAll(() => database.drop());

  const at = new Date('2026-11-22T10:00:00Z');
  const record = (recipient: 0 | 1, kind: 'opened' | 'clicked', link?: 0 | 1) =>
    events.record({
      channelId: ids.channelId,
      broadcastId: ids.broadcastId,
      recipientId: ids.recipients[recipient]!,
      subscriberId: ids.subscribers[recipient]!,
      kind,
      linkId: link === undefined ? null : ids.links[link]!,
      occurredAt: at,
      data: { user_agent: 'test' },
    });

  it('marks the first open of each recipient, and only the first', async () => {
    expect((await record(0, 'opened')).firstForRecipient).toBe(true);
    expect((await record(0, 'opened')).firstForRecipient).toBe(false);
    expect((await record(1, 'opened')).firstForRecipient).toBe(true);
    const rows = await database.db('email_events').where({ broadcast_id: ids.broadcastId, type: 'opened' }).select('occurred_at', 'data');
    expect(rows).toHaveLength(3);
    expect(rows[0]).toEqual({ occurred_at: at, data: { user_agent: 'test' } });
  });

  it('tells first clicks apart per link', async () => {
    expect((await record(0, 'clicked', 0)).firstForRecipient).toBe(true);
    expect((await record(0, 'clicked', 1)).firstForRecipient).toBe(true);
    expect((await record(0, 'clicked', 0)).firstForRecipient).toBe(false);
  });
});

describe('PgEmailEvents aggregates: kept in the same statement, equal to a rebuild from raw events', () => {
  let database: TestDatabase;
  let events: PgEmailEvents;
  let seq = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    events = new PgEmailEvents(database.db);
  });
  afterAll(() => database.drop());

  /** A broadcast with `n` recipients and `links` tracked links, seeded in SQL. */
  async function aSend(n: number, links: number) {
    const db = database.db;
    const [channel] = await db('channels').insert({ name: 'c' }).returning('id');
    const channelId = (channel as { id: number }).id;
    const [broadcast] = await db('broadcasts').insert({ channel_id: channelId, subject: 's', track_opens: true, track_clicks: true }).returning('id');
    const broadcastId = (broadcast as { id: number }).id;
    const subscribers = (
      await db('subscribers')
        .insert(Array.from({ length: n }, () => ({ channel_id: channelId, email: `r${++seq}@example.com` })))
        .returning('id')
    ).map((r: { id: number }) => r.id);
    const recipients = (
      await db('broadcast_recipients')
        .insert(subscribers.map((s) => ({ broadcast_id: broadcastId, subscriber_id: s, message_id: `<m${++seq}@t>` })))
        .returning('id')
    ).map((r: { id: number }) => r.id);
    const linkRows = Array.from({ length: links }, (_, i) => ({ broadcast_id: broadcastId, identifier: `l${i}`, url: `https://example.com/${i}` }));
    const linkIds: number[] = links === 0 ? [] : (await db('broadcast_links').insert(linkRows).returning('id')).map((r: { id: number }) => r.id);
    const rec = (i: number, kind: EmailEventKind, occurredAt: Date, link?: number, on: PgEmailEvents = events) =>
      on.record({
        channelId,
        broadcastId,
        recipientId: recipients[i]!,
        subscriberId: subscribers[i]!,
        kind,
        linkId: link === undefined ? null : linkIds[link]!,
        occurredAt,
      });
    return { channelId, broadcastId, recipients, subscribers, linkIds, rec };
  }

  /** Every aggregate row of the broadcast, in a stable order. */
  async function aggregates(broadcastId: number) {
    const q = (sql: string) => database.db.raw(sql, [broadcastId]).then((r: { rows: unknown[] }) => r.rows);
    return {
      firsts: await q(
        `SELECT f.recipient_id, f.kind, f.link_id FROM email_event_firsts f JOIN broadcast_recipients r ON r.id = f.recipient_id
          WHERE r.broadcast_id = ? ORDER BY 1, 2, 3`,
      ),
      counters: await q(`SELECT counter, shard, recipients, events FROM broadcast_statistics WHERE broadcast_id = ? ORDER BY 1, 2`),
      rollups: await q(`SELECT kind, grain_minutes, bucket, shard, events FROM broadcast_event_rollups WHERE broadcast_id = ? ORDER BY 1, 2, 3, 4`),
      links: await q(`SELECT s.* FROM broadcast_link_statistics s JOIN broadcast_links l ON l.id = s.link_id WHERE l.broadcast_id = ? ORDER BY 1, 2`),
    };
  }

  async function counter(broadcastId: number, name: string): Promise<{ recipients: number; events: number }> {
    const { rows } = await database.db.raw(
      `SELECT CAST(COALESCE(SUM(recipients), 0) AS bigint) AS recipients, CAST(COALESCE(SUM(events), 0) AS bigint) AS events
         FROM broadcast_statistics WHERE broadcast_id = ? AND counter = ?`,
      [broadcastId, name],
    );
    return rows[0];
  }

  it('hands out the first occurrence exactly once among concurrent calls', async () => {
    const send = await aSend(1, 1);
    const at = new Date('2026-11-22T10:00:00Z');
    const results = await Promise.all(Array.from({ length: 24 }, () => send.rec(0, 'opened', at)));
    expect(results.filter((r) => r.firstForRecipient)).toHaveLength(1);
    expect(await counter(send.broadcastId, 'opened')).toEqual({ recipients: 1, events: 24 });
    const clicks = await Promise.all(Array.from({ length: 12 }, (_, i) => send.rec(0, 'clicked', at, i % 1)));
    expect(clicks.filter((r) => r.firstForRecipient)).toHaveLength(1);
    expect(await counter(send.broadcastId, 'clicked')).toEqual({ recipients: 1, events: 12 });
  });

  it('gives the first occurrence to the next caller when the first one rolls back', async () => {
    const send = await aSend(1, 0);
    const at = new Date('2026-11-22T10:00:00Z');
    const trx = await database.db.transaction();
    expect((await send.rec(0, 'delivered', at, undefined, new PgEmailEvents(trx))).firstForRecipient).toBe(true);
    // Blocks on the uncommitted first-occurrence row until the transaction ends.
    const waiting = send.rec(0, 'delivered', at);
    await eventually(
      async () => {
        const blocked = await database.db.raw("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
        return blocked.rows.length > 0 ? true : undefined;
      },
      10_000,
      10,
    );
    await trx.rollback();
    expect((await waiting).firstForRecipient).toBe(true);
    expect(await counter(send.broadcastId, 'delivered')).toEqual({ recipients: 1, events: 1 });
  });

  it('keeps counters, per-link counters and rollups, equal to a rebuild from the raw events', async () => {
    const send = await aSend(10, 3);
    const t0 = Date.parse('2026-11-22T09:58:30Z');
    const at = (minutes: number) => new Date(t0 + minutes * 60_000);
    // A controlled send: every recipient processed; 0–7 delivered, 8 bounced, 9 delayed then failed.
    for (let i = 0; i < 10; i++) await send.rec(i, 'processed', at(0));
    for (let i = 0; i < 8; i++) await send.rec(i, 'delivered', at(1));
    await send.rec(8, 'bounced', at(1));
    await send.rec(9, 'delayed', at(1));
    await send.rec(9, 'failed', at(70));
    // Opens: 0 three times, 1 twice, 2 once. Clicks: 0 on links 0, 0, 1; 1 on link 1; 2 on link 0.
    for (const [i, m] of [
      [0, 2],
      [0, 3],
      [0, 90],
      [1, 2],
      [1, 5],
      [2, 4],
    ] as const)
      await send.rec(i, 'opened', at(m));
    for (const [i, l, m] of [
      [0, 0, 3],
      [0, 0, 4],
      [0, 1, 6],
      [1, 1, 7],
      [2, 0, 200],
    ] as const)
      await send.rec(i, 'clicked', at(m), l);
    await send.rec(3, 'complained', at(8));
    await send.rec(4, 'unsubscribed', at(9));

    const expected = {
      processed: { recipients: 10, events: 10 },
      delivered: { recipients: 8, events: 8 },
      bounced: { recipients: 1, events: 1 },
      failed: { recipients: 1, events: 1 },
      undeliverable: { recipients: 2, events: 2 },
      delayed: { recipients: 1, events: 1 },
      opened: { recipients: 3, events: 6 },
      clicked: { recipients: 3, events: 5 },
      complained: { recipients: 1, events: 1 },
      unsubscribed: { recipients: 1, events: 1 },
    };
    for (const [name, value] of Object.entries(expected)) expect([name, await counter(send.broadcastId, name)]).toEqual([name, value]);

    const { rows: links } = await database.db.raw(
      `SELECT s.link_id, CAST(SUM(total_clicks) AS bigint) AS total, CAST(SUM(unique_clicks) AS bigint) AS uniq,
              MIN(first_clicked_at) AS first, MAX(last_clicked_at) AS last
         FROM broadcast_link_statistics s WHERE s.link_id = ANY(?) GROUP BY s.link_id ORDER BY s.link_id`,
      [send.linkIds],
    );
    expect(links).toEqual([
      { link_id: send.linkIds[0], total: 3, uniq: 2, first: at(3), last: at(200) },
      { link_id: send.linkIds[1], total: 2, uniq: 2, first: at(6), last: at(7) },
    ]);

    // Rollups at 1, 5 and 60 minutes, epoch-aligned: opens at 10:00:30 (×2), 10:01:30, 10:02:30, 10:03:30, 11:28:30.
    const opens = async (grain: number) =>
      (
        await database.db.raw(
          `SELECT bucket, CAST(SUM(events) AS bigint) AS events FROM broadcast_event_rollups
            WHERE broadcast_id = ? AND kind = 'opened' AND grain_minutes = ? GROUP BY bucket ORDER BY bucket`,
          [send.broadcastId, grain],
        )
      ).rows;
    const minuteOpens = await opens(1);
    expect(minuteOpens).toEqual([
      { bucket: new Date('2026-11-22T10:00:00Z'), events: 2 },
      { bucket: new Date('2026-11-22T10:01:00Z'), events: 1 },
      { bucket: new Date('2026-11-22T10:02:00Z'), events: 1 },
      { bucket: new Date('2026-11-22T10:03:00Z'), events: 1 },
      { bucket: new Date('2026-11-22T11:28:00Z'), events: 1 },
    ]);
    expect(await opens(5)).toEqual([
      { bucket: new Date('2026-11-22T10:00:00Z'), events: 5 },
      { bucket: new Date('2026-11-22T11:25:00Z'), events: 1 },
    ]);
    expect(await opens(60)).toEqual([
      { bucket: new Date('2026-11-22T10:00:00Z'), events: 5 },
      { bucket: new Date('2026-11-22T11:00:00Z'), events: 1 },
    ]);

    const incremental = await aggregates(send.broadcastId);
    expect(incremental.firsts.length).toBeGreaterThan(0);
    await rebuildEmailEventAggregates(database.db, send.broadcastId);
    expect(await aggregates(send.broadcastId)).toEqual(incremental);
  });

  it('recordMany keeps exactly the aggregates record() keeps for the same events', async () => {
    const one = await aSend(6, 2);
    const many = await aSend(6, 2);
    const t0 = Date.parse('2026-11-22T09:58:30Z');
    const at = (minutes: number) => new Date(t0 + minutes * 60_000);
    // Repeats inside one batch (opens, clicks on one link) and across batches (a second open).
    const script: Array<[number, EmailEventKind, number, number?]> = [
      [0, 'processed', 0],
      [1, 'processed', 0],
      [2, 'processed', 0],
      [3, 'processed', 0],
      [4, 'processed', 0],
      [5, 'processed', 0],
      [0, 'delivered', 1],
      [1, 'delivered', 1],
      [2, 'delivered', 1],
      [3, 'bounced', 1],
      [4, 'delayed', 1],
      [4, 'failed', 61],
      [0, 'opened', 2],
      [0, 'opened', 2],
      [1, 'opened', 7],
      [0, 'clicked', 3, 0],
      [0, 'clicked', 3, 0],
      [1, 'clicked', 4, 1],
      [2, 'clicked', 90, 0],
      [5, 'complained', 5],
      [2, 'unsubscribed', 6],
      [0, 'opened', 120],
    ];
    for (const [i, kind, m, link] of script) await one.rec(i, kind, at(m), link);
    const batches = [script.slice(0, 9), script.slice(9, 18), script.slice(18)];
    await Promise.all(
      batches.map((batch) =>
        events.recordMany(
          batch.map(([i, kind, m, link]) => ({
            channelId: many.channelId,
            broadcastId: many.broadcastId,
            recipientId: many.recipients[i]!,
            subscriberId: many.subscribers[i]!,
            kind,
            linkId: link === undefined ? null : many.linkIds[link]!,
            occurredAt: at(m),
          })),
        ),
      ),
    );
    // The two sends differ only in their ids: compare with the ids mapped across.
    const a = await aggregates(one.broadcastId);
    const b = await aggregates(many.broadcastId);
    const recipient = new Map(many.recipients.map((id, i) => [id, one.recipients[i]]));
    const link = new Map(many.linkIds.map((id, i) => [id, one.linkIds[i]]));
    expect(a.counters.length).toBeGreaterThan(5);
    // Each group adds to one shard, its first recipient's: n emails cost one row per counter.
    expect(new Set(b.counters.map((c: any) => Number(c.shard)))).toEqual(new Set(batches.map((batch) => many.recipients[batch[0]![0]]! % AGGREGATE_SHARDS)));
    expect(b.firsts.map((f: any) => ({ ...f, recipient_id: recipient.get(f.recipient_id), link_id: f.link_id === 0 ? 0 : link.get(f.link_id) }))).toEqual(
      expect.arrayContaining(a.firsts as unknown[]),
    );
    expect(b.firsts).toHaveLength(a.firsts.length);
    // Writers pick shards differently (per event, per group); compare sums over the shards.
    const sumBy = (rows: any[], key: (r: any) => string, fields: string[]) => {
      const out = new Map<string, Record<string, number>>();
      for (const r of rows) {
        const k = key(r);
        const acc = out.get(k) ?? Object.fromEntries(fields.map((f) => [f, 0]));
        for (const f of fields) acc[f]! += Number(r[f]);
        out.set(k, acc);
      }
      return Object.fromEntries([...out.entries()].sort());
    };
    expect(sumBy(b.counters, (r) => r.counter, ['recipients', 'events'])).toEqual(sumBy(a.counters, (r) => r.counter, ['recipients', 'events']));
    expect(sumBy(b.rollups, (r) => `${r.kind}|${r.grain_minutes}|${r.bucket.toISOString()}`, ['events'])).toEqual(
      sumBy(a.rollups, (r) => `${r.kind}|${r.grain_minutes}|${r.bucket.toISOString()}`, ['events']),
    );
    expect(
      sumBy(
        b.links.map((r: any) => ({ ...r, link_id: link.get(r.link_id) })),
        (r) => String(r.link_id),
        ['total_clicks', 'unique_clicks'],
      ),
    ).toEqual(sumBy(a.links, (r) => String(r.link_id), ['total_clicks', 'unique_clicks']));
    // And the batch path leaves what a rebuild from its raw events leaves.
    const totals = (x: Awaited<ReturnType<typeof aggregates>>) => ({
      firsts: x.firsts,
      counters: sumBy(x.counters, (r) => r.counter, ['recipients', 'events']),
      rollups: sumBy(x.rollups, (r) => `${r.kind}|${r.grain_minutes}|${r.bucket.toISOString()}`, ['events']),
      links: sumBy(x.links, (r) => String(r.link_id), ['total_clicks', 'unique_clicks']),
    });
    const batched = totals(await aggregates(many.broadcastId));
    await rebuildEmailEventAggregates(database.db, many.broadcastId);
    expect(totals(await aggregates(many.broadcastId))).toEqual(batched);
  });

  it('rolls the aggregates back with the event', async () => {
    const send = await aSend(1, 1);
    const at = new Date('2026-11-22T10:00:00Z');
    await expect(
      database.db.transaction(async (trx) => {
        await send.rec(0, 'clicked', at, 0, new PgEmailEvents(trx));
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(await aggregates(send.broadcastId)).toEqual({ firsts: [], counters: [], rollups: [], links: [] });
    expect((await send.rec(0, 'clicked', at, 0)).firstForRecipient).toBe(true);
  });
});
