import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApi, type ApiHarness } from '../../api/src/test-support/harness';
import { runAdmin } from './test-support/run-admin';

/** `segment create --rules FILE` and `segment count` against a real database (docs/segments.md). */
describe('admin CLI: segments', () => {
  let api: ApiHarness;
  let dir: string;
  beforeAll(async () => {
    api = await startApi();
    dir = await mkdtemp(join(tmpdir(), 'mailcast-segment-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await api.close();
  });

  const admin = (...argv: string[]) => runAdmin(api.database.url, argv);

  const file = async (name: string, content: string) => {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  };

  it('creates a segment from a rules file and counts its members', async () => {
    const channel = await api.fixtures.aChannel();
    await api.fixtures.aSubscriber(channel.id, 'a@example.test', { tags: ['vip'], customData: { plan: 'pro' } });
    await api.fixtures.aSubscriber(channel.id, 'b@example.test', { tags: ['vip'], customData: { plan: 'free' } });
    await api.fixtures.aSubscriber(channel.id, 'c@example.test', { tags: [] });
    const rules = await file(
      'vip.json',
      JSON.stringify({
        match: 'all',
        rules: [
          { field: 'tags', operator: 'includes', value: 'vip' },
          { field: 'custom_data.plan', operator: 'equals', value: 'pro' },
        ],
      }),
    );

    const created = await admin('segment', 'create', '--channel', String(channel.id), '--name', 'VIP pro', '--rules', rules, '--json');
    expect(created.code).toBe(0);
    expect(created.json).toEqual({
      id: expect.any(Number),
      name: 'VIP pro',
      match: 'all',
      rules: [
        { field: 'tags', operator: 'includes', value: 'vip' },
        { field: 'custom_data.plan', operator: 'equals', value: 'pro' },
      ],
    });
    const counted = await admin('segment', 'count', '--channel', String(channel.id), '--id', String(created.json.id), '--json');
    expect(counted).toMatchObject({ code: 0, json: { id: created.json.id, subscribers_count: 1 } });

    // --match overrides the file's: either rule now suffices.
    const any = await admin('segment', 'create', '--channel', String(channel.id), '--name', 'either', '--rules', rules, '--match', 'any', '--json');
    expect((await admin('segment', 'count', '--channel', String(channel.id), '--id', String(any.json.id), '--json')).json.subscribers_count).toBe(2);
    const human = await admin('segment', 'count', '--channel', String(channel.id), '--id', String(any.json.id));
    expect(human.stdout).toContain('either): 2 subscribers');
  });

  it('refuses rules that cannot be evaluated, a missing file, another channel and bad JSON, creating nothing', async () => {
    const channel = await api.fixtures.aChannel();
    const bad = await file('bad.json', JSON.stringify([{ field: 'colour', operator: 'equals', value: 'red' }]));
    const refused = await admin('segment', 'create', '--channel', String(channel.id), '--name', 'x', '--rules', bad, '--json');
    expect(refused.code).toBe(1);
    expect(refused.json.error).toContain('rules[0] field colour is not known');
    const notJson = await admin('segment', 'create', '--channel', String(channel.id), '--name', 'x', '--rules', await file('x.json', '{'), '--json');
    expect([notJson.code, notJson.json.error]).toEqual([1, expect.stringContaining('is not valid JSON')]);
    const missing = await admin('segment', 'create', '--channel', String(channel.id), '--name', 'x', '--rules', join(dir, 'none.json'), '--json');
    expect(missing.json.error).toContain('File not found');
    const noChannel = await admin('segment', 'create', '--channel', '999999', '--name', 'x', '--rules', bad, '--json');
    expect(noChannel.json).toEqual({ error: 'Channel not found' });
    expect(await api.database.db('segments').where({ channel_id: channel.id })).toEqual([]);

    const other = await api.fixtures.aChannel();
    const theirs = await admin('segment', 'create', '--channel', String(other.id), '--name', 'theirs', '--rules', await file('all.json', '[]'), '--json');
    const crossed = await admin('segment', 'count', '--channel', String(channel.id), '--id', String(theirs.json.id), '--json');
    expect([crossed.code, crossed.json]).toEqual([1, { error: 'Segment not found' }]);
  });
});
