import { eventually } from '@mailcast/testkit';
import { useSequenceHarness } from '../test-support/sequence-harness';

/**
 * docs/reputation-guard.md, "Sequence email steps": a send_email step past its channel's hard
 * bounce limit pauses itself, with `broadcast.paused` and its figures; enrolments reaching it wait
 * parked; a person's resume lets them go on and the guard judges what comes after. The SMTP server
 * refuses (550) every address starting with `bounce-`.
 */
describe('sequence runtime: the reputation guard on email steps', () => {
  const h = useSequenceHarness();
  // One email at a time in claims of four: a pause stops the runtime at its next claim.
  const dispatcher = () => h.dispatcher({ claimBatchSize: 4, concurrency: 1 });
  const drain = async (on: ReturnType<typeof dispatcher>) => {
    for (let turns = 0; turns < 50 && (await h.runDue(on)) > 0; turns++);
  };
  const db = () => h.api.database.db;
  const handedTo = (emails: readonly string[]) => emails.filter((e) => h.received(e).length > 0).length;
  const attempted = async (stepId: number) =>
    Number((await db()('sequence_step_statistics').where({ step_id: stepId, counter: 'processed' }).sum('recipients as n').first())?.n ?? 0);

  it('pauses the step past the hard bounce rate, parks who reaches it, and resumes on a person’s word', async () => {
    expect((await h.request('PATCH', '/api/v1/channel/settings', { reputation_guard: { min_sent: 4, max_hard_bounce_rate: 20 } })).status).toBe(200);
    const { id, steps } = await h.sequence([{ action: 'send_email', subject: 'Welcome', body: 'Hello' }], { label: 'Guarded' });
    const step = steps[0]!;
    // Every other address is refused: 50 %, over the 20 % limit.
    const emails = Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? `bounce-${i}@guard.example.test` : `ok-${i}@guard.example.test`));
    for (const email of emails) await h.enrol(id, email);
    const on = dispatcher();
    await drain(on);

    const got = (await h.request('GET', `/api/v1/sequences/${id}/steps/${step}`)).body;
    expect(got).toMatchObject({ paused: true, pause_reason: 'hard_bounce_rate' });
    const paused = (await h.events('broadcast.paused')).map((e) => e.data);
    expect(paused).toHaveLength(1);
    expect(paused[0]).toMatchObject({
      broadcast_id: null,
      receipted_type: 'SequenceStep',
      sequence_id: id,
      sequence_step_id: step,
      reason: 'hard_bounce_rate',
      pause_reason: 'hard_bounce_rate',
      limit: 20,
      complaints: 0,
    });
    expect(paused[0].sent).toBeGreaterThanOrEqual(4);
    expect(paused[0].hard_bounce_rate).toBeGreaterThan(20);

    // Nothing more went out than the claims already held when the step paused.
    const sentBefore = await attempted(step);
    expect(sentBefore).toBeLessThanOrEqual(paused[0].sent + 4 + 1);
    expect(sentBefore).toBeLessThan(emails.length);
    const statuses = (await db()('subscriber_sequences').where({ sequence_id: id }).select('status', 'current_step_id', 'next_trigger_at')).map(
      (r) => `${r.status}@${r.current_step_id === step ? 'email' : r.current_step_id}`,
    );
    expect([statuses.filter((s) => s === 'paused@email').length, statuses]).toEqual([emails.length - sentBefore, expect.anything()]);
    expect(await h.events('sequence.subscriber_paused')).toHaveLength(emails.length - sentBefore);
    // Another turn sends nothing while the step stays paused.
    await drain(on);
    expect(await attempted(step)).toBe(sentBefore);

    // A person resumes: the parked enrolments go on; the guard judges only what came after its pause.
    const resumed = await h.request('PATCH', `/api/v1/sequences/${id}/steps/${step}`, { paused: false });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ paused: false, pause_reason: null });
    expect(await h.events('sequence.subscriber_resumed')).toHaveLength(emails.length - sentBefore);
    await drain(on);
    const again = (await h.events('broadcast.paused')).map((e) => e.data);
    expect(again).toHaveLength(2);
    // The second pause's figures start from the first pause: min_sent more emails at least.
    expect(again[1].sent).toBeGreaterThanOrEqual(4);
    expect(await attempted(step)).toBeGreaterThanOrEqual(sentBefore + 4);
    expect(handedTo(emails)).toBeGreaterThan(0);
  }, 240_000);

  it('a person’s pause holds the step with no reason; only send_email steps can be paused', async () => {
    expect((await h.request('PATCH', '/api/v1/channel/settings', { reputation_guard: { enabled: false } })).status).toBe(200);
    const { id, steps } = await h.sequence(
      [
        { action: 'send_email', subject: 'Held', body: 'Hello' },
        { action: 'delay', delay: 60 },
      ],
      { label: 'Held by hand' },
    );
    const [email, delay] = [steps[0]!, steps[1]!];
    const refused = await h.request('PATCH', `/api/v1/sequences/${id}/steps/${delay}`, { paused: true });
    expect([refused.status, JSON.stringify(refused.body)]).toEqual([422, expect.stringContaining('only send_email steps can be paused')]);
    const held = await h.request('PATCH', `/api/v1/sequences/${id}/steps/${email}`, { paused: true });
    expect(held.body).toMatchObject({ paused: true, pause_reason: null });

    await h.enrol(id, 'held@guard.example.test');
    const on = dispatcher();
    await drain(on);
    expect(h.received('held@guard.example.test')).toHaveLength(0);
    expect(await h.enrolment(id, 'held@guard.example.test')).toMatchObject({ status: 'paused', current_step_id: email });

    expect((await h.request('PATCH', `/api/v1/sequences/${id}/steps/${email}`, { paused: false })).status).toBe(200);
    await drain(on);
    // The SMTP server may hold the message a moment after the outcome commits.
    await eventually(async () => h.received('held@guard.example.test').length === 1 || undefined, 10_000);
    expect(await h.enrolment(id, 'held@guard.example.test')).toMatchObject({ status: 'active', current_step_id: delay });
  }, 120_000);
});
