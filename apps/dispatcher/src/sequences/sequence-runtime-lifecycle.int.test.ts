import { SequenceRuntime, SyncSegmentEnrolments } from '@mailcast/core';
import { eventually } from '@mailcast/testkit';
import { loadDispatcherConfig } from '../config';
import { useSequenceHarness } from '../test-support/sequence-harness';
import { startSequenceRuntime } from '../workers/sequence-runtime';

const MINUTE = 60_000;
const subjects = (raw: Array<{ raw: Buffer }>) => raw.map((m) => /^Subject: (.*?)\r?$/m.exec(m.raw.toString())![1]);

/** docs/sequences.md: triggers, leaving, tree edits and pauses while subscribers wait, and sharing the work. */
describe('sequence runtime: lifecycle', () => {
  const h = useSequenceHarness();

  it('init_tag: a subscriber created with the tag through the API is enrolled and walks the sequence', async () => {
    const { id } = await h.sequence([{ action: 'send_email', subject: 'Trial day one' }], { init_tag: 'trial' });
    expect((await h.request('POST', '/api/v1/subscribers.json', { subscriber: { email: 'trial@example.com', tags: ['trial'] } })).status).toBe(201);
    await h.runDue();
    expect(subjects(h.received('trial@example.com'))).toEqual(['Trial day one']);
    expect((await h.enrolment(id, 'trial@example.com')).status).toBe('completed');
  });

  it('init_segment_id: the sync enrols active members never enrolled, once, for active sequences only', async () => {
    const segment = await h.request('POST', '/api/v1/segments', { segment: { name: 'Plan', rules: [{ field: 'tags', operator: 'includes', value: 'pro' }] } });
    for (const email of ['p1@example.com', 'p2@example.com', 'gone@example.com']) {
      await h.request('POST', '/api/v1/subscribers.json', { subscriber: { email, tags: ['pro'] } });
    }
    await h.request('POST', '/api/v1/subscribers.json', { subscriber: { email: 'free@example.com', tags: ['free'] } });
    await h.request('POST', '/api/v1/subscribers/deactivate.json', { email: 'gone@example.com' });
    const { id } = await h.sequence([{ action: 'send_email', subject: 'Pro tips' }], { init_segment_id: segment.body.id });
    const off = await h.sequence([], { init_segment_id: segment.body.id, active: false });

    expect(await h.syncSegments()).toBe(2);
    expect(await h.syncSegments()).toBe(0);
    const added = (await h.events('sequence.subscriber_added')).map((e) => e.data).filter((d) => d.sequence_id === id);
    expect(added.map((d) => d.subscriber.email).sort()).toEqual(['p1@example.com', 'p2@example.com']);
    expect((await h.request('GET', `/api/v1/sequences/${off.id}`)).body.subscribers_count).toBe(0);

    await h.runDue();
    expect(h.received('p1@example.com')).toHaveLength(1);
    // Present and new members alike: a later member is enrolled by the next sync; those done stay done.
    await h.request('POST', '/api/v1/subscribers.json', { subscriber: { email: 'p3@example.com', tags: ['pro'] } });
    expect(await h.syncSegments()).toBe(1);
    await h.runDue();
    expect(h.received('p1@example.com')).toHaveLength(1);
    expect(h.received('p3@example.com')).toHaveLength(1);
  });

  it('init_segment_id: one dispatcher at a time syncs a sequence, the other skips it, and each member is enrolled once with one event', async () => {
    const segment = await h.request('POST', '/api/v1/segments', {
      segment: { name: 'Crowd', rules: [{ field: 'tags', operator: 'includes', value: 'crowd' }] },
    });
    for (let i = 0; i < 20; i++) await h.request('POST', '/api/v1/subscribers.json', { subscriber: { email: `crowd${i}@example.com`, tags: ['crowd'] } });
    const { id } = await h.sequence([{ action: 'delay', delay: 3600 }], { init_segment_id: segment.body.id });
    const entry = (await h.api.database.db('sequence_steps').where({ sequence_id: id, action: 'entry_point' }).first('id')).id;
    const other = h.dispatcher();

    // Another dispatcher's sync of this sequence under way (its lock held): this one skips it.
    const holder = await h.api.database.db.transaction();
    await holder.raw(`SELECT pg_advisory_xact_lock(hashtext('mailcast.sequence_segment_sync'), (?::bigint % 2147483647)::int)`, [id]);
    expect(await h.syncSegments()).toBe(0);
    await holder.rollback();

    // Two at once: the members once between them, each with one sequence.subscriber_added.
    const [a, b] = await Promise.all([h.syncSegments(), other.resolve(SyncSegmentEnrolments).execute()]);
    expect(a + b).toBe(20);
    const added = (await h.events('sequence.subscriber_added')).map((e) => e.data).filter((d) => d.sequence_id === id);
    expect(added).toHaveLength(20);
    expect(added[0]).toEqual({ sequence_id: id, subscriber_sequence_id: expect.any(Number), status: 'active', step_id: entry, subscriber: expect.any(Object) });
    expect(new Set(added.map((d) => d.subscriber.email)).size).toBe(20);
    expect(await h.syncSegments()).toBe(0);
  });

  it('leaving during a delay: an unsubscribe or a deactivation sends nothing more', async () => {
    const { id } = await h.sequence([
      { action: 'send_email', subject: 'First' },
      { action: 'delay', delay: 3600 },
      { action: 'send_email', subject: 'Second' },
    ]);
    await h.enrol(id, 'unsub@example.com');
    await h.enrol(id, 'deact@example.com');
    await h.runDue();
    await h.request('POST', '/api/v1/subscribers/unsubscribe.json', { email: 'unsub@example.com' });
    await h.request('POST', '/api/v1/subscribers/deactivate.json', { email: 'deact@example.com' });
    h.clock.advance(2 * 60 * MINUTE);
    await h.runDue();
    for (const email of ['unsub@example.com', 'deact@example.com']) {
      expect(subjects(h.received(email))).toEqual(['First']);
      expect((await h.enrolment(id, email)).status).toBe('removed');
    }
  });

  it('a waiting subscriber follows the tree as it is: a deleted step is replaced, a moved step runs where it now is', async () => {
    const { id, steps } = await h.sequence([
      { action: 'delay', delay: 600 },
      { action: 'send_email', subject: 'A' },
      { action: 'send_email', subject: 'B' },
    ]);
    await h.enrol(id, 'deleted@example.com');
    await h.runDue();
    // Deleted while waited on: the replacement (A) is due at once.
    expect((await h.request('DELETE', `/api/v1/sequences/${id}/steps/${steps[0]}`)).status).toBe(200);
    await h.runDue();
    expect(subjects(h.received('deleted@example.com'))).toEqual(['A', 'B']);

    const second = await h.sequence([
      { action: 'delay', delay: 600 },
      { action: 'send_email', subject: 'A' },
      { action: 'send_email', subject: 'B' },
    ]);
    await h.enrol(second.id, 'moved@example.com');
    await h.runDue();
    // B moved right under the delay while the subscriber waits on it: B comes before A.
    expect((await h.request('POST', `/api/v1/sequences/${second.id}/steps/${second.steps[2]}/move`, { under_id: second.steps[0] })).status).toBe(200);
    h.clock.advance(11 * MINUTE);
    await h.runDue();
    expect(subjects(h.received('moved@example.com'))).toEqual(['B', 'A']);
  });

  it('a step deleted while the runtime runs the one before it: the subscriber goes on at its replacement', async () => {
    const { id, steps } = await h.sequence([
      { action: 'make_http_request', url: h.receiver.url('/delete-next') },
      { action: 'delay', delay: 600 },
      { action: 'send_email', subject: 'After the deleted delay' },
    ]);
    // The delay is deleted while the request step runs, after the runtime read the tree.
    h.receiver.before.set('/delete-next', async () => {
      expect((await h.request('DELETE', `/api/v1/sequences/${id}/steps/${steps[1]}`)).status).toBe(200);
    });
    await h.enrol(id, 'raced@example.com');
    await h.runDue();
    expect(subjects(h.received('raced@example.com'))).toEqual(['After the deleted delay']);
    expect(await h.enrolment(id, 'raced@example.com')).toMatchObject({ status: 'completed' });

    // The last step deleted while it runs: the path ends there, completed and due at no time.
    const last = await h.sequence([{ action: 'make_http_request', url: h.receiver.url('/delete-self') }]);
    h.receiver.before.set('/delete-self', async () => {
      expect((await h.request('DELETE', `/api/v1/sequences/${last.id}/steps/${last.steps[0]}`)).status).toBe(200);
    });
    await h.enrol(last.id, 'ended@example.com');
    await h.runDue();
    expect(await h.enrolment(last.id, 'ended@example.com')).toMatchObject({ status: 'completed', next_trigger_at: null });
  });

  it('switched off, enrolments pause; switched on, overdue steps run at once', async () => {
    const { id } = await h.sequence([
      { action: 'delay', delay: 60 },
      { action: 'send_email', subject: 'After the pause' },
    ]);
    await h.enrol(id, 'paused@example.com');
    await h.runDue();
    await h.request('PATCH', `/api/v1/sequences/${id}`, { active: false });
    h.clock.advance(5 * MINUTE);
    await h.runDue();
    expect(h.received('paused@example.com')).toHaveLength(0);
    expect((await h.enrolment(id, 'paused@example.com')).status).toBe('paused');
    await h.request('PATCH', `/api/v1/sequences/${id}`, { active: true });
    await h.runDue();
    expect(h.received('paused@example.com')).toHaveLength(1);
  });

  it('an enrolment the runtime holds when its sequence is switched off is parked, its due time kept', async () => {
    const { id } = await h.sequence([{ action: 'send_email', subject: 'Not while off' }]);
    const enrolled = await h.enrol(id, 'racing@example.com');
    // Switched off between the pause statement's look and the claim: the row is still active.
    await h.api.database.db('sequences').where({ id }).update({ active: false });
    await h.runDue();
    expect(h.received('racing@example.com')).toHaveLength(0);
    const parked = await h.enrolment(id, 'racing@example.com');
    expect(parked).toMatchObject({ status: 'paused', current_step_id: enrolled.current_step_id, next_trigger_at: enrolled.next_trigger_at });
    expect((await h.events('sequence.subscriber_paused')).map((e) => e.data.subscriber.email)).toContain('racing@example.com');
  });

  it("a step already run is not run again, and a dead dispatcher's lapsed claims are taken over", async () => {
    const { id, steps } = await h.sequence([
      { action: 'send_email', subject: 'Once' },
      { action: 'send_email', subject: 'Twice?' },
    ]);
    const ran = await h.enrol(id, 'ran@example.com');
    const orphan = await h.enrol(id, 'orphan@example.com');
    // As if a dispatcher recorded the first email, then died holding both enrolments.
    await h.api.database.db('sequence_step_runs').insert({ enrolment_id: ran.id, step_id: steps[0], created_at: new Date() });
    await h.api.database.db('subscriber_sequences').whereIn('id', [ran.id, orphan.id]).update({ current_step_id: steps[0] });
    const claimed = await h
      .dispatcher()
      .resolve<SequenceRuntime>(SequenceRuntime)
      .claim('dead', new Date(Date.now() + 1_000), 1, 10);
    expect(claimed.map((c) => c.id).sort()).toEqual([ran.id, orphan.id].sort());
    await new Promise((resolve) => setTimeout(resolve, 20));
    await h.runDue();
    expect(subjects(h.received('ran@example.com'))).toEqual(['Twice?']);
    expect(subjects(h.received('orphan@example.com'))).toEqual(['Once', 'Twice?']);
  });

  it('two dispatchers share 200 due enrolments: each email once, none lost', async () => {
    const { id } = await h.sequence([{ action: 'send_email', subject: 'Shared' }]);
    const emails = Array.from({ length: 200 }, (_, i) => `shared${i}@example.com`);
    for (let i = 0; i < emails.length; i += 20) await Promise.all(emails.slice(i, i + 20).map((email) => h.enrol(id, email)));
    // Small claims, so the two dispatchers' claims interleave all along.
    const [one, two] = [h.dispatcher({ claimBatchSize: 5, concurrency: 5 }), h.dispatcher({ claimBatchSize: 5, concurrency: 5 })];
    const [a, b] = await Promise.all([h.runDue(one), h.runDue(two)]);
    expect(a + b).toBe(400);
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThan(0);
    const counts = new Map<string, number>();
    for (const m of h.smtp.messages) for (const to of m.to) if (to.startsWith('shared')) counts.set(to, (counts.get(to) ?? 0) + 1);
    expect(counts.size).toBe(200);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    const statuses = await h.api.database
      .db('subscriber_sequences')
      .where({ sequence_id: id })
      .groupBy('status')
      .select('status', h.api.database.db.raw('count(*)::int AS n'));
    expect(statuses).toEqual([{ status: 'completed', n: 200 }]);
  });

  it('the dispatcher worker runs due steps by itself and syncs segments on its interval, and stops cleanly', async () => {
    const segment = await h.request('POST', '/api/v1/segments', { segment: { name: 'Auto', rules: [{ field: 'tags', operator: 'includes', value: 'auto' }] } });
    const { id } = await h.sequence([{ action: 'send_email', subject: 'By itself' }], { init_segment_id: segment.body.id });
    const settings = loadDispatcherConfig(h.baseUrl, { SEQUENCE_SEGMENT_SYNC_INTERVAL: '200ms' }).sequences;
    const worker = startSequenceRuntime(h.dispatcher(), { ...settings, pollMs: 50 });
    try {
      h.clock.advance(Math.max(0, Date.now() - h.clock.current()) + 5_000);
      await h.request('POST', '/api/v1/subscribers.json', { subscriber: { email: 'auto@example.com', tags: ['auto'] } });
      await eventually(async () => (h.received('auto@example.com').length === 1 ? true : undefined), 10_000);
      // The SMTP server has the email before the step's outcome is committed: wait for that too.
      await eventually(async () => ((await h.enrolment(id, 'auto@example.com')).status === 'completed' ? true : undefined), 10_000);
    } finally {
      await worker.stop();
    }
  });
});
