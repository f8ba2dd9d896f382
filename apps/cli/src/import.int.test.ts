import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startApi, type ApiHarness } from '../../api/src/test-support/harness';
import { runAdmin } from './test-support/run-admin';

/** `subscribers import --channel ID FILE.csv` against a real database. */
describe('admin CLI: subscribers import', () => {
  let api: ApiHarness;
  let dir: string;
  beforeAll(async () => {
    api = await startApi();
    dir = await mkdtemp(join(tmpdir(), 'mailcast-import-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await api.close();
  });

  const admin = (...argv: string[]) => runAdmin(api.database.url, argv);

  let files = 0;
  async function csv(content: string | Buffer): Promise<string> {
    const path = join(dir, `import-${++files}.csv`);
    await writeFile(path, content);
    return path;
  }

  const subscribers = (channelId: number) => api.database.db('subscribers').where({ channel_id: channelId }).orderBy('id');
  const events = (channelId: number) => api.database.db('events').where({ channel_id: channelId }).orderBy('id');

  it('creates new subscribers with source import, tags, custom data and quoted fields', async () => {
    const { channel } = await api.fixtures.aTenant();
    const file = await csv(
      [
        'Email,first_name,last_name,ip_address,tags,subscribed_at,plan,custom_data.city',
        ' Ada@Example.COM ,Ada,Lovelace,10.0.0.1,vip; beta|news,2024-03-01T10:00:00Z,pro,London',
        '"zoë@example.com","Zoë, the ""Second""","Line one',
        'line two",,"a,b",2024-03-02,,',
      ].join('\n') + '\n',
    );
    const result = await admin('subscribers', 'import', '--channel', String(channel.id), file, '--json');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(result.json).toEqual({ created: 2, updated: 0, unchanged: 0, refused: { count: 0, rows: [] } });

    const rows = await subscribers(channel.id);
    expect(rows).toEqual([
      expect.objectContaining({
        email: 'ada@example.com',
        first_name: 'Ada',
        last_name: 'Lovelace',
        ip_address: '10.0.0.1',
        source: 'import',
        is_active: true,
        tags: ['vip', 'beta', 'news'],
        custom_data: { plan: 'pro', city: 'London' },
        subscribed_at: new Date('2024-03-01T10:00:00Z'),
      }),
      expect.objectContaining({
        email: 'zoë@example.com',
        first_name: 'Zoë, the "Second"',
        last_name: 'Line one\nline two',
        ip_address: null,
        source: 'import',
        tags: ['a', 'b'],
        custom_data: {},
        subscribed_at: new Date('2024-03-02T00:00:00Z'),
      }),
    ]);
    const outbox = await events(channel.id);
    expect(outbox.map((e) => e.type)).toEqual(['subscriber.created', 'subscriber.created']);
    expect(outbox[0].data).toEqual({
      subscriber_id: rows[0].id,
      email: 'ada@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      subscribed_at: '2024-03-01T10:00:00.000Z',
      unsubscribed_at: null,
      is_active: true,
      custom_data: { plan: 'pro', city: 'London' },
      source: 'import',
    });
    expect(outbox[0].dispatched_at).toBeNull();
  });

  it('updates existing subscribers without resubscribing the unsubscribed or changing their source', async () => {
    const { channel } = await api.fixtures.aTenant();
    const kept = await api.fixtures.aSubscriber(channel.id, 'kept@example.com', {
      firstName: 'Old',
      lastName: 'Name',
      tags: ['old'],
      customData: { plan: 'free', since: '2020' },
      source: 'api_subscription',
    });
    const gone = await api.fixtures.aSubscriber(channel.id, 'gone@example.com', { firstName: 'Gone' });
    const unsubscribedAt = new Date('2025-01-01T00:00:00Z');
    await api.database.db('subscribers').where({ id: gone.id }).update({ is_active: false, unsubscribed_at: unsubscribedAt });
    await api.fixtures.aSubscriber(channel.id, 'same@example.com', { firstName: 'Same', tags: ['x'] });

    const file = await csv(
      'email,first_name,last_name,tags,plan\n' +
        'KEPT@example.com,New,,new;old,pro\n' +
        'gone@example.com,Back,,,\n' +
        'same@example.com,Same,,x,\n' +
        'fresh@example.com,Fresh,,,\n',
    );
    const result = await admin('subscribers', 'import', '--channel', String(channel.id), file);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`imported ${file}: 1 created, 2 updated, 1 unchanged, 0 refused\n`);

    const byEmail = Object.fromEntries((await subscribers(channel.id)).map((r) => [r.email, r]));
    expect(byEmail['kept@example.com']).toMatchObject({
      id: kept.id,
      first_name: 'New',
      last_name: 'Name',
      tags: ['old', 'new'],
      custom_data: { plan: 'pro', since: '2020' },
      source: 'api_subscription',
      subscribed_at: kept.subscribedAt,
    });
    expect(byEmail['gone@example.com']).toMatchObject({ first_name: 'Back', is_active: false, unsubscribed_at: unsubscribedAt });
    expect(byEmail['fresh@example.com']).toMatchObject({ source: 'import', is_active: true });
    const outbox = await events(channel.id);
    expect(outbox.map((e) => [e.type, e.data.email])).toEqual(
      expect.arrayContaining([
        ['subscriber.updated', 'kept@example.com'],
        ['subscriber.updated', 'gone@example.com'],
        ['subscriber.created', 'fresh@example.com'],
      ]),
    );
    expect(outbox).toHaveLength(3);
    expect(outbox.find((e) => e.data.email === 'gone@example.com')?.data).toMatchObject({
      is_active: false,
      unsubscribed_at: '2025-01-01T00:00:00.000Z',
      source: 'api_subscription',
    });
  });

  it('refuses invalid rows with their line numbers and imports the rest', async () => {
    const { channel } = await api.fixtures.aTenant();
    const file = await csv(
      Buffer.concat([
        Buffer.from(
          'email,first_name,subscribed_at\n' +
            'good@example.com,Good,\n' +
            'not-an-email,X,\n' +
            ',NoEmail,\n' +
            'GOOD@example.com,Again,\n' +
            'nul@example.com,A\u0000B,\n' +
            'date@example.com,D,yesterday\n' +
            'redacted-1@redacted.invalid,R,\n' +
            'short@example.com\n',
        ),
        Buffer.from('bad@example.com,'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from(',\n'),
      ]),
    );
    const result = await admin('subscribers', 'import', '--channel', String(channel.id), file, '--json');
    expect(result.code).toBe(0);
    expect(result.json).toEqual({
      created: 2,
      updated: 0,
      unchanged: 0,
      refused: {
        count: 7,
        rows: [
          { line: 3, email: 'not-an-email', reason: 'email is invalid' },
          { line: 4, email: '', reason: 'email is missing' },
          { line: 5, email: 'GOOD@example.com', reason: 'email appears earlier in the file' },
          { line: 6, email: 'nul@example.com', reason: 'contains a NUL character' },
          { line: 7, email: 'date@example.com', reason: 'subscribed_at is not an ISO 8601 date' },
          { line: 8, email: 'redacted-1@redacted.invalid', reason: 'email is reserved for redacted subscribers' },
          { line: 10, email: 'bad@example.com', reason: 'is not valid UTF-8' },
        ],
      },
    });
    expect((await subscribers(channel.id)).map((r) => [r.email, r.first_name])).toEqual([
      ['good@example.com', 'Good'],
      ['short@example.com', null],
    ]);

    const plain = await admin('subscribers', 'import', '--channel', String(channel.id), file);
    expect(plain.stdout).toContain(
      '0 created, 0 updated, 2 unchanged, 7 refused\n  line 3: not-an-email: email is invalid\n  line 4: (no email): email is missing\n',
    );
  });

  it('reports the line a record starts on, across quoted line breaks and CRLF files', async () => {
    const { channel } = await api.fixtures.aTenant();
    const rows = ['email,note', 'a@example.com,"one\r\ntwo\r\nthree"', '', 'bad-1,x', '"b@example.com","x\r\ny"', 'bad-2,"p\r\nq"', 'bad-3,z'];
    const crlf = await csv(rows.join('\r\n') + '\r\n');
    const lf = await csv(rows.join('\n').replace(/\r\n/g, '\n') + '\n');
    for (const [file, eol] of [
      [crlf, '\r\n'],
      [lf, '\n'],
    ] as const) {
      const result = await admin('subscribers', 'import', '--channel', String(channel.id), file, '--json');
      expect(result.json.refused.rows.map((r: { line: number }) => r.line)).toEqual([6, 9, 11]);
      // Line breaks inside quoted cells are kept as written.
      expect((await subscribers(channel.id)).map((r) => r.custom_data.note)).toEqual([`one${eol}two${eol}three`, `x${eol}y`]);
    }
  });

  it('imports a larger file in several batches with exact counts and one event per change', async () => {
    const { channel } = await api.fixtures.aTenant();
    for (let i = 0; i < 10; i++) await api.fixtures.aSubscriber(channel.id, `user${i * 500}@example.com`);
    const lines = ['email,first_name,tags'];
    for (let i = 0; i < 5_000; i++) lines.push(`user${i}@example.com,Näme ${i},t${i % 3}`);
    lines.push('broken,,');
    const file = await csv(lines.join('\n') + '\n');
    const result = await admin('subscribers', 'import', '--channel', String(channel.id), file, '--json');
    expect(result.code).toBe(0);
    expect(result.json).toEqual({
      created: 4_990,
      updated: 10,
      unchanged: 0,
      refused: { count: 1, rows: [{ line: 5_002, email: 'broken', reason: 'email is invalid' }] },
    });
    // Off a terminal the bar prints its lines on stderr; stdout keeps its one document.
    expect(result.stderr).toContain('import [');
    const counted = await api.database.db('subscribers').where({ channel_id: channel.id, source: 'import' }).count({ n: '*' });
    expect(Number(counted[0]?.n)).toBe(4_990);
    const types = await api.database.db('events').where({ channel_id: channel.id }).select('type').count().groupBy('type').orderBy('type');
    expect(types.map((t) => [t.type, Number(t.count)])).toEqual([
      ['subscriber.created', 4_990],
      ['subscriber.updated', 10],
    ]);
    const sample = await api.database.db('subscribers').where({ channel_id: channel.id, email: 'user4999@example.com' }).first();
    expect(sample).toMatchObject({ first_name: 'Näme 4999', tags: ['t1'] });
  }, 30_000);

  it.each([
    ['an unknown channel', ['--channel', '999999'], 'ok', 'Channel not found'],
    ['a file without an email column', [], 'name,tags\nx,y\n', 'The CSV header has no "email" column'],
  ])('fails on %s with exit 1 and one JSON error', async (_what, extra, content, message) => {
    const { channel } = await api.fixtures.aTenant();
    const file = await csv(content === 'ok' ? 'email\na@example.com\n' : content);
    const argv = extra.length > 0 ? extra : ['--channel', String(channel.id)];
    const result = await admin('subscribers', 'import', ...argv, file, '--json');
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(result.json).toEqual({ error: message });
  });

  it('keeps types the list filter reads, merges a custom_data JSON object, and the API filter finds them', async () => {
    const { channel, token } = await api.fixtures.aTenant();
    const file = await csv(
      [
        'email,score,active,zip,ratio,custom_data',
        'typed@example.com,7,true,007,0.5,"{""plan"":{""tier"":""pro""},""vip"":true}"',
        'other@example.com,8,false,7,x,',
        'badjson@example.com,1,,,,[1]',
      ].join('\n') + '\n',
    );
    const result = await admin('subscribers', 'import', '--channel', String(channel.id), file, '--json');
    expect(result.json).toEqual({
      created: 2,
      updated: 0,
      unchanged: 0,
      refused: { count: 1, rows: [{ line: 4, email: 'badjson@example.com', reason: 'custom_data is not a JSON object' }] },
    });
    const rows = await subscribers(channel.id);
    expect(rows.map((r) => r.custom_data)).toEqual([
      { plan: { tier: 'pro' }, vip: true, score: 7, active: true, zip: '007', ratio: 0.5 },
      { score: 8, active: false, zip: 7, ratio: 'x' },
    ]);

    const find = async (query: string) => {
      const res = await request(api.app).get(`/api/v1/subscribers.json?${query}`).set('Authorization', `Bearer ${token}`);
      expect(res.status).toBe(200);
      return (res.body.subscribers as Array<{ email: string }>).map((s) => s.email);
    };
    expect(await find('custom_data[score]=7')).toEqual(['typed@example.com']);
    expect(await find('custom_data[active]=true')).toEqual(['typed@example.com']);
    expect(await find('custom_data[active]=false')).toEqual(['other@example.com']);
    // docs/subscribers.md, Typed cells: a leading zero keeps a cell a string, in the import and the filter alike.
    expect(await find('custom_data[zip]=007')).toEqual(['typed@example.com']);
    expect(await find('custom_data[zip]=7')).toEqual(['other@example.com']);
    expect(await find('custom_data[ratio]=0.5')).toEqual(['typed@example.com']);
    expect(await find('custom_data[vip]=true')).toEqual(['typed@example.com']);
  });

  it('fails clearly on a missing file and on a missing file argument', async () => {
    const { channel } = await api.fixtures.aTenant();
    const missing = join(dir, 'nope.csv');
    const result = await admin('subscribers', 'import', '--channel', String(channel.id), missing, '--json');
    expect(result).toMatchObject({ code: 1, json: { error: `File not found: ${missing}` } });
    const noFile = await admin('subscribers', 'import', '--channel', String(channel.id), '--json');
    expect(noFile).toMatchObject({ code: 2, json: { error: 'exactly one file is required\nusage: subscribers import --channel ID FILE.csv' } });
    expect(await subscribers(channel.id)).toEqual([]);
  });

  it('stops on a malformed CSV with the parser message and exit 1', async () => {
    const { channel } = await api.fixtures.aTenant();
    const file = await csv('email,first_name\na@example.com,"unclosed\n');
    const result = await admin('subscribers', 'import', '--channel', String(channel.id), file, '--json');
    expect(result.code).toBe(1);
    expect(result.json.error).toMatch(/Quote Not Closed/i);
  });
});
