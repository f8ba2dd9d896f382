import { useSequenceHarness } from '../test-support/sequence-harness';

const MINUTE = 60_000;

/** docs/sequences.md, "Runtime": the HTTP step, its retries, and a dead receiver blocking nobody. */
describe('sequence runtime: make_http_request', () => {
  const h = useSequenceHarness();

  it('sends the subscriber as JSON by default, or the Liquid body with its method and headers, then moves on', async () => {
    const { id } = await h.sequence([
      { action: 'make_http_request', url: h.receiver.url('/default') },
      {
        action: 'make_http_request',
        http_method: 'PUT',
        url: h.receiver.url('/custom'),
        headers: { 'X-Token': 'abc' },
        body: '{"who":"{{ subscriber.email }}","in":"{{ sequence.label }}"}',
      },
    ]);
    await h.enrol(id, 'hook@example.com', { first_name: 'Hue' });
    await h.runDue();
    const first = h.receiver.hits.find((x) => x.path === '/default')!;
    expect(first.method).toBe('POST');
    expect(JSON.parse(first.body)).toMatchObject({ email: 'hook@example.com', first_name: 'Hue' });
    const second = h.receiver.hits.find((x) => x.path === '/custom')!;
    expect(second.method).toBe('PUT');
    expect(second.headers['x-token']).toBe('abc');
    expect(JSON.parse(second.body)).toEqual({ who: 'hook@example.com', in: 'Welcome' });
    expect((await h.enrolment(id, 'hook@example.com')).status).toBe('completed');
  });

  it('a 4xx errs at once with subscriber_error', async () => {
    h.receiver.status.set('/gone', 410);
    const { id } = await h.sequence([
      { action: 'make_http_request', url: h.receiver.url('/gone') },
      { action: 'send_email', subject: 'Never' },
    ]);
    await h.enrol(id, 'fourxx@example.com');
    await h.runDue();
    const e = await h.enrolment(id, 'fourxx@example.com');
    expect(e.status).toBe('error');
    expect(h.receiver.hits.filter((x) => x.path === '/gone')).toHaveLength(1);
    const errors = (await h.events('sequence.subscriber_error')).map((x) => x.data).filter((d) => d.sequence_id === id);
    expect(errors).toEqual([
      expect.objectContaining({ status: 'error', error: 'HTTP 410', subscriber: expect.objectContaining({ email: 'fourxx@example.com' }) }),
    ]);
    expect(h.received('fourxx@example.com')).toHaveLength(0);
  });

  it('a 5xx is tried again after 1, 5 and 30 minutes, then errs; another enrolment goes on meanwhile', async () => {
    h.receiver.status.set('/down', 503);
    const { id } = await h.sequence([{ action: 'make_http_request', url: h.receiver.url('/down') }]);
    const other = await h.sequence([{ action: 'send_email', subject: 'Unblocked' }]);
    await h.enrol(id, 'retry@example.com');
    await h.runDue();
    const hits = () => h.receiver.hits.filter((x) => x.path === '/down').length;
    expect(hits()).toBe(1);
    const waiting = await h.enrolment(id, 'retry@example.com');
    expect(waiting.status).toBe('active');
    expect(new Date(waiting.next_trigger_at).getTime()).toBe(h.clock.current() + MINUTE);

    // The receiver's trouble holds nobody else up.
    await h.enrol(other.id, 'bystander@example.com');
    await h.runDue();
    expect(h.received('bystander@example.com')).toHaveLength(1);
    expect(hits()).toBe(1);

    for (const [wait, expected] of [
      [MINUTE, 2],
      [5 * MINUTE, 3],
      [30 * MINUTE, 4],
    ] as const) {
      h.clock.advance(wait - 1_000);
      await h.runDue();
      expect(hits()).toBe(expected - 1);
      h.clock.advance(1_000);
      await h.runDue();
      expect(hits()).toBe(expected);
    }
    const ended = await h.enrolment(id, 'retry@example.com');
    expect(ended.status).toBe('error');
    const errors = (await h.events('sequence.subscriber_error')).map((x) => x.data).filter((d) => d.sequence_id === id);
    expect(errors).toEqual([expect.objectContaining({ error: 'HTTP 503 after 4 attempts' })]);
  });
});
