import { useSequenceHarness } from '../test-support/sequence-harness';

const MINUTE = 60_000;

/** docs/sequences.md, "Runtime": every step type but send_email and the HTTP step, through HTTP. */
describe('sequence runtime: steps', () => {
  const h = useSequenceHarness();

  it('delay: waits from arrival; an edit reaches only later arrivals', async () => {
    const { id, steps } = await h.sequence([
      { action: 'delay', delay: 600 },
      { action: 'send_email', subject: 'After the wait' },
    ]);
    await h.enrol(id, 'early@example.com');
    await h.runDue();
    const waiting = await h.enrolment(id, 'early@example.com');
    expect(waiting).toMatchObject({ status: 'active', current_step_id: steps[0] });
    expect(new Date(waiting.next_trigger_at).getTime()).toBe(h.clock.current() + 600_000);

    // Lengthened to an hour: the one already waiting keeps its 10 minutes.
    expect((await h.request('PATCH', `/api/v1/sequences/${id}/steps/${steps[0]}`, { delay: 3600 })).status).toBe(200);
    await h.enrol(id, 'late@example.com');
    h.clock.advance(9 * MINUTE);
    await h.runDue();
    expect(h.received('early@example.com')).toHaveLength(0);
    h.clock.advance(MINUTE + 1_000);
    await h.runDue();
    expect(h.received('early@example.com')).toHaveLength(1);
    expect(h.received('late@example.com')).toHaveLength(0);
    expect((await h.enrolment(id, 'late@example.com')).status).toBe('active');
    h.clock.advance(60 * MINUTE);
    await h.runDue();
    expect(h.received('late@example.com')).toHaveLength(1);
  });

  it('delay_until_time: the time of day in the zone, on the next day', async () => {
    const { id } = await h.sequence([{ action: 'delay_until_time', time: '09:30', timezone: 'America/New_York' }]);
    await h.enrol(id, 'zone@example.com');
    await h.runDue();
    const at = new Date((await h.enrolment(id, 'zone@example.com')).next_trigger_at);
    const local = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hourCycle: 'h23', hour: '2-digit', minute: '2-digit' }).format(at);
    expect(local).toBe('09:30');
    const hoursAhead = (at.getTime() - h.clock.current()) / 3_600_000;
    expect(hoursAhead).toBeGreaterThan(0);
    expect(hoursAhead).toBeLessThanOrEqual(48);
    h.clock.advance(at.getTime() - h.clock.current());
    await h.runDue();
    expect((await h.enrolment(id, 'zone@example.com')).status).toBe('completed');
  });

  it('condition: after its delay, the true branch for an opened email and the false branch without one', async () => {
    const { id, steps } = await h.sequence([
      { action: 'send_email', subject: 'Did you read this?' },
      { action: 'condition', condition_setting: 'previous_email_opened', delay: 3600 },
    ]);
    const tree = (await h.request('GET', `/api/v1/sequences/${id}/steps`)).body.data as Array<{ id: number; action: string; branch?: boolean }>;
    const trueBranch = tree.find((s) => s.action === 'condition_branch' && s.branch === true)!.id;
    const falseBranch = tree.find((s) => s.action === 'condition_branch' && s.branch === false)!.id;
    await h.request('POST', `/api/v1/sequences/${id}/steps`, { action: 'add_tag_to_subscriber', tags: ['engaged'], parent_id: trueBranch });
    await h.request('POST', `/api/v1/sequences/${id}/steps`, { action: 'add_tag_to_subscriber', tags: ['cold'], parent_id: falseBranch });
    await h.enrol(id, 'reader@example.com');
    await h.enrol(id, 'ignorer@example.com');
    await h.runDue();
    expect((await h.enrolment(id, 'reader@example.com')).current_step_id).toBe(steps[1]);

    // The open as tracking records it for this enrolment's email.
    const reader = await h.api.database.db('subscribers').where({ email: 'reader@example.com', channel_id: h.channelId }).first('id');
    await h.api.database.db('email_events').insert({
      channel_id: h.channelId,
      subscriber_id: reader.id,
      type: 'opened',
      occurred_at: new Date(),
      data: '{}',
      sequence_id: id,
      sequence_step_id: steps[0],
    });
    h.clock.advance(30 * MINUTE);
    expect(await h.runDue()).toBe(0);
    h.clock.advance(31 * MINUTE);
    await h.runDue();
    const tagsOf = async (email: string) => (await h.api.database.db('subscribers').where({ email, channel_id: h.channelId }).first('tags')).tags;
    expect(await tagsOf('reader@example.com')).toEqual(['engaged']);
    expect(await tagsOf('ignorer@example.com')).toEqual(['cold']);
    expect((await h.enrolment(id, 'reader@example.com')).status).toBe('completed');
  });

  it('a condition with no email sent yet takes the false branch', async () => {
    const { id } = await h.sequence([{ action: 'condition', condition_setting: 'any_email_clicked' }]);
    const tree = (await h.request('GET', `/api/v1/sequences/${id}/steps`)).body.data as Array<{ id: number; action: string; branch?: boolean }>;
    const falseBranch = tree.find((s) => s.action === 'condition_branch' && s.branch === false)!.id;
    await h.request('POST', `/api/v1/sequences/${id}/steps`, { action: 'send_email', subject: 'No clicks yet', parent_id: falseBranch });
    await h.enrol(id, 'fresh@example.com');
    await h.runDue();
    expect(h.received('fresh@example.com')).toHaveLength(1);
  });

  it('add and remove tags go through the subscribers trigger: an init_tag sequence enrols the tagged subscriber', async () => {
    const follow = await h.sequence([{ action: 'send_email', subject: 'You are a customer' }], { init_tag: 'customer' });
    const { id } = await h.sequence([
      { action: 'add_tag_to_subscriber', tags: ['customer', 'x'] },
      { action: 'remove_tag_from_subscriber', tags: ['lead'] },
    ]);
    await h.enrol(id, 'buyer@example.com', { tags: ['lead'] });
    await h.runDue();
    const row = await h.api.database.db('subscribers').where({ email: 'buyer@example.com', channel_id: h.channelId }).first('tags');
    expect(row.tags).toEqual(['customer', 'x']);
    expect((await h.enrolment(follow.id, 'buyer@example.com')).status).toBe('completed');
    expect(h.received('buyer@example.com')).toHaveLength(1);
  });

  it('deactivate_subscriber: the subscriber becomes inactive and leaves every sequence', async () => {
    const other = await h.sequence([{ action: 'delay', delay: 3600 }]);
    const { id } = await h.sequence([{ action: 'deactivate_subscriber' }, { action: 'send_email', subject: 'Never' }]);
    await h.enrol(other.id, 'leaver@example.com');
    await h.enrol(id, 'leaver@example.com');
    await h.runDue();
    expect((await h.api.database.db('subscribers').where({ email: 'leaver@example.com', channel_id: h.channelId }).first('is_active')).is_active).toBe(false);
    expect((await h.enrolment(id, 'leaver@example.com')).status).toBe('removed');
    expect((await h.enrolment(other.id, 'leaver@example.com')).status).toBe('removed');
    expect(h.received('leaver@example.com')).toHaveLength(0);
  });

  it('move_to_sequence: completes here with subscriber_moved and starts the target, unless under way there', async () => {
    const target = await h.sequence([{ action: 'send_email', subject: 'Target' }]);
    const { id } = await h.sequence([
      { action: 'move_to_sequence', target_sequence_id: target.id },
      { action: 'send_email', subject: 'Never here' },
    ]);
    await h.enrol(id, 'mover@example.com');
    await h.runDue();
    expect((await h.enrolment(id, 'mover@example.com')).status).toBe('completed');
    expect((await h.enrolment(target.id, 'mover@example.com')).status).toBe('completed');
    const moved = (await h.events('sequence.subscriber_moved')).map((e) => e.data);
    expect(moved).toEqual([expect.objectContaining({ sequence_id: id, target_sequence_id: target.id, status: 'completed' })]);
    // docs/sequences.md, "Exactly once": the move's own event, then the effect's (the target's enrolment).
    const journey = (await h.events())
      .filter((e) => e.type.startsWith('sequence.') && e.data.subscriber?.email === 'mover@example.com')
      .map((e) => [e.type, e.data.sequence_id]);
    expect(journey).toEqual([
      ['sequence.subscriber_added', id],
      ['sequence.subscriber_moved', id],
      ['sequence.subscriber_added', target.id],
      ['sequence.subscriber_completed', target.id],
    ]);
    expect(h.received('mover@example.com').map((m) => /^Subject: (.*?)\r?$/m.exec(m.raw.toString())![1])).toEqual(['Target']);

    // Under way in the target: left as it is.
    const waiting = await h.sequence([{ action: 'delay', delay: 3600 }]);
    const mover2 = await h.sequence([{ action: 'move_to_sequence', target_sequence_id: waiting.id }]);
    const before = await h.enrol(waiting.id, 'stay@example.com');
    await h.enrol(mover2.id, 'stay@example.com');
    await h.runDue();
    const after = await h.enrolment(waiting.id, 'stay@example.com');
    expect(after).toMatchObject({ id: before.id, status: 'active', started_at: before.started_at });
  });
});
