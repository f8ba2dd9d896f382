import { parseEmail } from '@mailcast/devkit';
import { eventually } from '@mailcast/testkit';
import { useSendingHarness } from './test-support/sending-harness';

describe('templates (HTTP, dispatcher workers, real SMTP)', () => {
  const h = useSendingHarness();

  const create = (template: Record<string, unknown>) => h.request('POST', '/api/v1/templates', { template });

  it('creates, reads, lists, updates and deletes a template', async () => {
    const created = await create({ label: 'Welcome', subject: 'Hi {{ subscriber.first_name }}', body: 'Hello', html_body: '<p>Hello</p>' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      label: 'Welcome',
      subject: 'Hi {{ subscriber.first_name }}',
      preheader: null,
      body: 'Hello',
      html_body: '<p>Hello</p>',
      template_purpose: 'broadcast',
      default_confirmation: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const id = created.body.id as number;
    expect((await h.request('GET', `/api/v1/templates/${id}`)).body).toEqual(created.body);
    const patched = await h.request('PATCH', `/api/v1/templates/${id}`, { preheader: 'Soon' });
    expect(patched.body).toMatchObject({ label: 'Welcome', preheader: 'Soon', body: 'Hello' });
    const list = await h.request('GET', '/api/v1/templates?limit=10');
    expect(list.body).toEqual({ data: [patched.body], total: 1 });
    expect((await h.request('DELETE', `/api/v1/templates/${id}`)).status).toBe(200);
    expect((await h.request('GET', `/api/v1/templates/${id}`)).body).toEqual({ error: 'Template not found' });
  });

  it('refuses invalid Liquid at save with a 422 naming the field, line and column', async () => {
    const res = await create({ label: 'Broken', subject: 'Fine', body: 'Line one\nHello {{ subscriber.first_name ' });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['body']);
    expect(res.body.errors.body[0]).toMatch(/^is not valid Liquid: .*line:2, col:7/);
    expect((await create({ subject: 'No label' })).body).toEqual({ errors: { label: ["can't be blank"] } });
    expect((await create({ label: 'C', template_purpose: 'confirmation', subject: 'S' })).body).toEqual({
      errors: { body: ["can't be blank for a confirmation template"] },
    });
    expect((await h.request('GET', '/api/v1/templates')).body.total).toBe(0);
  });

  it('keeps one default confirmation template per channel, and double opt-in uses it', async () => {
    const first = await create({
      label: 'A',
      template_purpose: 'confirmation',
      default_confirmation: true,
      subject: 'Confirm A',
      body: 'A {{ confirmation_url }}',
    });
    const second = await create({
      label: 'B',
      template_purpose: 'confirmation',
      default_confirmation: true,
      subject: 'Please confirm, {{ subscriber.first_name }}',
      body: 'Open {{ confirmation_url }}',
    });
    expect(second.body.default_confirmation).toBe(true);
    expect((await h.request('GET', `/api/v1/templates/${first.body.id}`)).body.default_confirmation).toBe(false);

    const before = h.smtp.messages.length;
    await h.request('POST', '/api/v1/subscribers.json', { subscriber: { email: 'doi@example.com', first_name: 'Dora' }, double_opt_in: true });
    const message = await eventually(async () => h.smtp.messages.slice(before).find((m) => m.to.includes('doi@example.com')));
    const email = await parseEmail(message.raw);
    expect(email.subject).toBe('Please confirm, Dora');
    expect(email.text).toMatch(/^Open http:\/\/127\.0\.0\.1:\d+\//);
  });

  it('fills a broadcast from its template_id, its own fields winning, and guards the template while it is sent', async () => {
    const template = await create({ label: 'News', subject: 'News for {{ subscriber.email }}', body: 'Template body', preheader: 'Pre' });
    await h.request('POST', '/api/v1/subscribers.json', { email: 'reader@example.com' });
    const created = await h.request('POST', '/api/v1/broadcasts', { broadcast: { template_id: template.body.id, body: 'Own body' } });
    expect(created.status).toBe(201);
    const shown = await h.request('GET', `/api/v1/broadcasts/${created.body.id}`);
    expect(shown.body).toMatchObject({ subject: 'News for {{ subscriber.email }}', body: 'Own body', preheader: 'Pre', template_id: template.body.id });
    const unknown = await h.request('POST', '/api/v1/broadcasts', { broadcast: { template_id: 999999 } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatch(/Template not found/);

    // A scheduled broadcast written from it: the template cannot go.
    const later = await h.request('POST', '/api/v1/broadcasts', { broadcast: { template_id: template.body.id } });
    const at = new Date(Date.now() + 3_600_000).toISOString();
    expect(
      (await h.request('POST', `/api/v1/broadcasts/${later.body.id}/schedule_broadcast`, { scheduled_send_at: at, scheduled_timezone: 'UTC' })).status,
    ).toBe(200);
    const refused = await h.request('DELETE', `/api/v1/templates/${template.body.id}`);
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ error: 'Template is used by a scheduled or sending broadcast' });
    await h.request('POST', `/api/v1/broadcasts/${later.body.id}/cancel_schedule`);

    const before = h.smtp.messages.length;
    await h.request('POST', `/api/v1/broadcasts/${created.body.id}/send_broadcast`);
    const message = await eventually(async () => h.smtp.messages.slice(before).find((m) => m.to.includes('reader@example.com')));
    const email = await parseEmail(message.raw);
    expect(email.subject).toBe('News for reader@example.com');
    expect(email.text).toContain('Own body');
    // Neither broadcast is scheduled or sending any more: the template may go.
    await eventually(async () => ((await h.request('GET', `/api/v1/broadcasts/${created.body.id}`)).body.status === 'sent' ? true : undefined));
    expect((await h.request('DELETE', `/api/v1/templates/${template.body.id}`)).status).toBe(200);
  });
});
