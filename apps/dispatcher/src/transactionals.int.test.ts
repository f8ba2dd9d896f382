import { parseEmail } from '@mailcast/devkit';
import { useSendingHarness } from './test-support/sending-harness';

describe('transactional email (HTTP, dispatcher workers, real SMTP)', () => {
  const h = useSendingHarness();

  const send = (body: Record<string, unknown>, key?: string) => h.sendTransactional(body, key);
  const to = (address: string) => h.received(address);
  const finalStatus = (id: number) => h.transactionalOutcome(id);

  it('sends once, rendered with subscriber and data, creating the subscriber on first send', async () => {
    const res = await send({
      to: 'Reset@Example.com',
      subject: 'Reset for {{ subscriber.first_name }}',
      body: 'Code {{ data.code }}',
      html_body: '<p>{{ data.code }}</p>',
      data: { code: '<123>' },
      subscriber: { first_name: 'Rita' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      to: 'reset@example.com',
      subject: 'Reset for {{ subscriber.first_name }}',
      status: 'queued',
      created_at: expect.any(String),
    });
    const done = await finalStatus(res.body.id);
    expect(done).toEqual({
      id: res.body.id,
      to: 'reset@example.com',
      subject: 'Reset for {{ subscriber.first_name }}',
      status: 'sent',
      message_id: expect.stringMatching(/^<transactional\./),
      sent_at: expect.any(String),
      created_at: res.body.created_at,
      error: null,
    });
    expect(to('reset@example.com')).toHaveLength(1);
    const email = await parseEmail(to('reset@example.com')[0]!.raw);
    expect(email.subject).toBe('Reset for Rita');
    // The one sender rule (senderAddress): the email server's address and name.
    expect(email.from).toEqual({ address: 'news@example.com', name: 'Example News' });
    expect(email.text).toContain('Code <123>');
    expect(email.html).toContain('&lt;123&gt;');
    expect(email.messageId).toBe(done.message_id);
    const found = await h.request('GET', '/api/v1/subscribers/find.json?email=reset@example.com');
    expect(found.body).toMatchObject({ first_name: 'Rita', source: 'transactional' });
    const events = await h.api.database.db('events').where({ channel_id: h.channelId }).whereIn('type', ['email.sent', 'email.delivered']).orderBy('id');
    expect(events.map((e: { type: string; data: Record<string, unknown> }) => [e.type, e.data.transactional_id])).toEqual([
      ['email.sent', res.body.id],
      ['email.delivered', res.body.id],
    ]);
  });

  it('sends a subject rendered across lines as one header line', async () => {
    const res = await send({ to: 'lines@example.com', subject: 'Order {{ data.ref }}', body: 'B', data: { ref: '42\r\n  Bcc: evil@example.com' } });
    expect((await finalStatus(res.body.id)).status).toBe('sent');
    const email = await parseEmail(to('lines@example.com')[0]!.raw);
    expect(email.subject).toBe('Order 42 Bcc: evil@example.com');
    expect(h.received('evil@example.com')).toEqual([]);
  });

  it('twenty parallel retries with one Idempotency-Key send one email; all answer the same or 409', async () => {
    const body = { to: 'idem@example.com', subject: 'Receipt', body: 'Thanks' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => send(body, 'order-42')));
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const a of answers) expect([201, 409]).toContain(a.status);
    for (const a of created) expect(a.body).toEqual(created[0]!.body);
    for (const a of answers.filter((x) => x.status === 409)) expect(a.body).toEqual({ error: 'A request with this Idempotency-Key is still in progress' });
    await finalStatus(created[0]!.body.id);
    // A later retry replays the stored answer and sends nothing.
    const replay = await send({ body: 'Thanks', subject: 'Receipt', to: 'idem@example.com' }, 'order-42');
    expect(replay).toEqual({ status: 201, body: created[0]!.body });
    expect(await h.api.database.db('transactionals').where({ to_email: 'idem@example.com' }).count()).toEqual([{ count: 1 }]);
    // Let any stray job run before counting what reached the server.
    await send({ to: 'marker@example.com', subject: 'M', body: 'M' }).then((m) => finalStatus(m.body.id));
    expect(to('idem@example.com')).toHaveLength(1);

    const other = await send({ ...body, body: 'Different' }, 'order-42');
    expect(other).toEqual({ status: 422, body: { error: 'Idempotency-Key was already used with a different request body' } });
  });

  it('never sends to a suppressed address, and does send to an unsubscribed one', async () => {
    await h.request('POST', '/api/v1/suppressions.json', { email: 'blocked@example.com' });
    const blocked = await send({ to: 'blocked@example.com', subject: 'S', body: 'B' });
    expect(blocked.body.status).toBe('suppressed');
    await h.request('POST', '/api/v1/subscribers.json', { email: 'gone@example.com' });
    await h.request('POST', '/api/v1/subscribers/unsubscribe.json', { email: 'gone@example.com' });
    const reset = await send({ to: 'gone@example.com', subject: 'Password reset', body: 'B' });
    expect((await finalStatus(reset.body.id)).status).toBe('sent');
    expect(to('gone@example.com')).toHaveLength(1);
    expect(to('blocked@example.com')).toHaveLength(0);
    expect((await h.request('GET', `/api/v1/transactionals/${blocked.body.id}.json`)).body.status).toBe('suppressed');
  });

  it('refuses bad requests with the field named, writing nothing', async () => {
    const before = await h.api.database.db('transactionals').count();
    expect((await send({ subject: 'S', body: 'B' })).body).toEqual({ errors: { to: ["can't be blank"] } });
    expect((await send({ to: 'x@example.com', subject: 'S', body: '{{ broken ' })).body.errors.body[0]).toMatch(/^is not valid Liquid/);
    expect((await send({ to: 'x@example.com', body: 'B' })).body).toEqual({ errors: { subject: ["can't be blank"] } });
    expect((await send({ to: 'x@example.com', subject: 'S', body: 'B' }, 'k'.repeat(256))).status).toBe(422);
    expect(await h.api.database.db('transactionals').count()).toEqual(before);
    expect((await h.request('GET', '/api/v1/transactionals/999999.json')).status).toBe(404);
  });

  it('fills subject and body from a template, its own fields winning', async () => {
    const template = await h.request('POST', '/api/v1/templates', { label: 'Receipt', subject: 'Receipt {{ data.n }}', body: 'Template body' });
    const res = await send({ to: 'tpl@example.com', template_id: template.body.id, body: 'Own body {{ data.n }}', data: { n: 7 } });
    expect(res.body.subject).toBe('Receipt {{ data.n }}');
    await finalStatus(res.body.id);
    const email = await parseEmail(to('tpl@example.com')[0]!.raw);
    expect([email.subject, email.text?.trim()]).toEqual(['Receipt 7', 'Own body 7']);
  });
});
