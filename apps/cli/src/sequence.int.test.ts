import { startApi, type ApiHarness } from '../../api/src/test-support/harness';
import { runAdmin } from './test-support/run-admin';

/** `sequence list` and `sequence enrol` against a real database (docs/sequences.md). */
describe('admin CLI: sequences', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  const admin = (...argv: string[]) => runAdmin(api.database.url, argv);
  const db = () => api.database.db;

  async function aSequence(channelId: number, label: string, active: boolean): Promise<number> {
    const now = new Date();
    const [row] = await db()('sequences').insert({ channel_id: channelId, label, active, created_at: now, updated_at: now }).returning('id');
    const id = Number((row as { id: number }).id);
    await db()('sequence_steps').insert({ sequence_id: id, action: 'entry_point', position: 0, created_at: now, updated_at: now });
    return id;
  }

  it("lists a channel's sequences with their counts, and enrols by sequence id alone", async () => {
    const channel = await api.fixtures.aChannel();
    const other = await api.fixtures.aChannel();
    const welcome = await aSequence(channel.id, 'Welcome', true);
    const nurture = await aSequence(channel.id, 'Nurture', false);
    await aSequence(other.id, 'Theirs', true);

    const enrolled = await admin('sequence', 'enrol', '--sequence', String(welcome), '--email', 'New@Example.test', '--json');
    expect(enrolled).toMatchObject({
      code: 0,
      json: { sequence_id: welcome, status: 'active', already_enrolled: false, subscriber: { email: 'new@example.test' } },
    });
    const subscriber = await db()('subscribers').where({ channel_id: channel.id, email: 'new@example.test' }).first('id');
    expect(subscriber).toBeDefined();
    const event = await db()('events').where({ channel_id: channel.id, type: 'sequence.subscriber_added' }).first('data');
    expect(event.data).toMatchObject({ sequence_id: welcome, status: 'active', subscriber: { email: 'new@example.test' } });
    const again = await admin('sequence', 'enrol', '--sequence', String(welcome), '--email', 'new@example.test');
    expect([again.code, again.stdout]).toEqual([0, expect.stringContaining('already in sequence')]);

    const listed = await admin('sequence', 'list', '--channel', String(channel.id), '--json');
    expect(listed.json).toEqual({
      data: [
        { id: nurture, label: 'Nurture', active: false, init_tag: null, subscribers_count: 0, steps_count: 0 },
        { id: welcome, label: 'Welcome', active: true, init_tag: null, subscribers_count: 1, steps_count: 0 },
      ],
      total: 2,
    });
    expect((await admin('sequence', 'list', '--channel', String(channel.id))).stdout).toContain('1 enrolled');
  });

  it('refuses an unknown sequence, a missing flag and an inactive subscriber', async () => {
    expect((await admin('sequence', 'enrol', '--sequence', '999999', '--email', 'a@example.test', '--json')).json).toEqual({ error: 'Sequence not found' });
    expect((await admin('sequence', 'enrol', '--email', 'a@example.test')).code).not.toBe(0);
    const channel = await api.fixtures.aChannel();
    const id = await aSequence(channel.id, 'S', true);
    await api.fixtures.aSubscriber(channel.id, 'off@example.test', { isActive: false });
    const refused = await admin('sequence', 'enrol', '--sequence', String(id), '--email', 'off@example.test', '--json');
    expect([refused.code, refused.json]).toEqual([1, { error: 'Subscriber is not active' }]);
  });
});
