import { parseEmail } from '@mailcast/devkit';
import { useSequenceHarness } from '../test-support/sequence-harness';

/** docs/sequences.md, "Runtime": a send_email step through HTTP, SMTP and the step's figures. */
describe('sequence runtime: send_email', () => {
  const h = useSequenceHarness();

  it('renders with subscriber and sequence, sends once with its Message-ID and one-click unsubscribe, records events and figures, then completes', async () => {
    const { id, steps } = await h.sequence(
      [
        {
          action: 'send_email',
          subject: 'Hi {{ subscriber.first_name }}',
          body: 'Welcome to {{ sequence.label }}, {{ subscriber.email }}. Choose: {{ preferences_url }} .',
        },
      ],
      { label: 'Onboarding' },
    );
    const enrolled = await h.enrol(id, 'ana@example.com', { first_name: 'Ana' });

    expect(await h.runDue()).toBe(2); // the entry point, then the email, back to back
    const [mail, ...more] = h.received('ana@example.com');
    expect(more).toHaveLength(0);
    const raw = mail!.raw.toString();
    expect(raw).toMatch(/^Subject: Hi Ana\r?$/m);
    expect(raw).toContain('Welcome to Onboarding, ana@example.com.');
    expect(raw).toMatch(new RegExp(`^Message-ID: <seq\\.${enrolled.id}\\.${steps[0]}\\.\\d+@127\\.0\\.0\\.1>\\r?$`, 'm'));
    expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
    const unsubscribe = /^List-Unsubscribe: <([^>]+)>/m.exec(raw)![1]!;
    expect(unsubscribe).toMatch(new RegExp(`^${h.baseUrl}/u/q${enrolled.id}\\.${steps[0]}-`));
    // docs/topics.md, "The preference page": the same token under /preferences/.
    const preferences = unsubscribe.replace('/u/', '/preferences/');
    expect((await parseEmail(mail!.raw)).text).toContain(`Choose: ${preferences} .`);
    expect((await fetch(preferences)).status).toBe(200);

    const after = await h.enrolment(id, 'ana@example.com');
    expect(after).toMatchObject({ status: 'completed', next_trigger_at: null, current_step_id: steps[0] });
    expect(after.completed_at).not.toBeNull();
    const sent = await h.events('email.sent');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.data).toMatchObject({ sequence_id: id, sequence_step_id: steps[0], receipted_type: 'SequenceStep', email: 'ana@example.com' });
    expect((await h.events('email.delivered'))[0]!.data).toMatchObject({ sequence_id: id, sequence_step_id: steps[0], delivered: true });
    expect((await h.events('sequence.subscriber_completed')).map((e) => e.data.subscriber.email)).toEqual(['ana@example.com']);
    expect((await h.events('sequence.subscriber_completed')).map((e) => e.data)).toEqual([
      {
        sequence_id: id,
        subscriber_sequence_id: enrolled.id,
        status: 'completed',
        step_id: steps[0],
        subscriber: { id: expect.any(Number), email: 'ana@example.com' },
      },
    ]);
    // docs/sequences.md, "Exactly once": a record's email.* events, then its sequence.* events.
    const recorded = (await h.events()).map((e) => e.type).filter((type) => type.startsWith('email.') || type === 'sequence.subscriber_completed');
    expect(recorded).toEqual(['email.sent', 'email.delivered', 'sequence.subscriber_completed']);

    // Nothing runs twice: another turn finds nothing due.
    expect(await h.runDue()).toBe(0);
    expect(h.received('ana@example.com')).toHaveLength(1);

    // The one-click POST unsubscribes and counts for the step.
    const oneClick = await fetch(unsubscribe, {
      method: 'POST',
      body: 'List-Unsubscribe=One-Click',
      // A browser's agent: Node's own is on the bot list, whose one-click POST is held (docs/engagement.md).
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
      },
    });
    expect(oneClick.status).toBe(200);
    const step = await h.request('GET', `/api/v1/sequences/${id}/steps/${steps[0]}`);
    expect(step.body.statistics).toEqual({ sent: 1, delivered: 1, opens: 0, clicks: 0, bounces: 0, unsubscribes: 1 });

    // docs/subscribers.md, "History": the email, with the Message-ID it went with.
    const history = await h.request('GET', '/api/v1/subscribers/history.json?email=ana@example.com');
    const messageId = /^Message-ID: (<[^>]+>)\r?$/m.exec(raw)![1];
    expect(history.body.history).toEqual([
      expect.objectContaining({
        kind: 'sequence',
        id: steps[0],
        sequence_id: id,
        subject: 'Hi {{ subscriber.first_name }}',
        status: 'sent',
        message_id: messageId,
      }),
    ]);
  });

  it('skips a suppressed subscriber and one in an excluded segment, and moves them on', async () => {
    const segment = await h.request('POST', '/api/v1/segments', { segment: { name: 'VIP', rules: [{ field: 'tags', operator: 'includes', value: 'vip' }] } });
    expect(segment.status).toBe(201);
    const { id, steps } = await h.sequence(
      [
        { action: 'send_email', subject: 'One' },
        { action: 'add_tag_to_subscriber', tags: ['done'] },
      ],
      { excluded_segment_ids: [segment.body.id] },
    );
    expect((await h.request('POST', '/api/v1/suppressions.json', { email: 'blocked@example.com' })).status).toBe(201);
    await h.enrol(id, 'blocked@example.com');
    await h.enrol(id, 'vip@example.com', { tags: ['vip'] });
    await h.enrol(id, 'plain@example.com');
    await h.runDue();

    expect(h.received('blocked@example.com')).toHaveLength(0);
    expect(h.received('vip@example.com')).toHaveLength(0);
    expect(h.received('plain@example.com')).toHaveLength(1);
    for (const email of ['blocked@example.com', 'vip@example.com', 'plain@example.com']) {
      expect((await h.enrolment(id, email)).status).toBe('completed');
    }
    expect((await h.request('GET', `/api/v1/sequences/${id}/steps/${steps[0]}`)).body.statistics.sent).toBe(1);
  });

  it('a subscriber who does not receive the topic gets no email for the step and moves on to the next (docs/sequences.md, Topic and exclusions)', async () => {
    const now = new Date();
    const [row] = await h.api.database
      .db('topics')
      .insert({ channel_id: h.channelId, name: 'Tips', storage: 'custom_data', custom_data_key: 'tips', created_at: now, updated_at: now })
      .returning('id');
    const topic = Number((row as { id: number }).id);
    const { id, steps } = await h.sequence(
      [
        { action: 'send_email', subject: 'Tip one' },
        { action: 'add_tag_to_subscriber', tags: ['after-tip'] },
      ],
      { topic_id: topic },
    );
    await h.enrol(id, 'tips-yes@example.com', { custom_data: { tips: true } });
    await h.enrol(id, 'tips-no@example.com', { custom_data: { tips: false } });
    await h.enrol(id, 'tips-unset@example.com');
    await h.runDue();

    expect(h.received('tips-yes@example.com')).toHaveLength(1);
    expect(h.received('tips-no@example.com')).toHaveLength(0);
    expect(h.received('tips-unset@example.com')).toHaveLength(0);
    for (const email of ['tips-yes@example.com', 'tips-no@example.com', 'tips-unset@example.com']) {
      // The sequence goes on: the step after the skipped email ran for everyone.
      expect((await h.enrolment(id, email)).status).toBe('completed');
      const subscriber = await h.api.database.db('subscribers').where({ channel_id: h.channelId, email }).first('tags');
      expect(subscriber.tags).toContain('after-tip');
    }
    expect((await h.request('GET', `/api/v1/sequences/${id}/steps/${steps[0]}`)).body.statistics.sent).toBe(1);
  });

  it('a hard bounce is recorded for the step, suppresses the address and removes the subscriber from the sequence', async () => {
    const bouncing = 'bounce-550@example.com';
    const { id, steps } = await h.sequence([
      { action: 'send_email', subject: 'One' },
      { action: 'send_email', subject: 'Two' },
    ]);
    await h.enrol(id, bouncing);
    await h.runDue();
    expect((await h.enrolment(id, bouncing)).status).toBe('removed');
    expect((await h.request('GET', `/api/v1/sequences/${id}/steps/${steps[0]}`)).body.statistics).toMatchObject({ sent: 1, bounces: 1, delivered: 0 });
    expect((await h.events('email.bounced')).at(-1)!.data).toMatchObject({ sequence_id: id, sequence_step_id: steps[0] });
    expect(await h.api.database.db('suppressions').where({ email: bouncing }).first('reason')).toEqual({ reason: 'bounce' });
  });
});
