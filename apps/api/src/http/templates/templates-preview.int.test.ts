import { HOSTILE_LIQUID } from '@mailcast/testkit';
import request from 'supertest';
import { expectResponseMatchesDocument } from '../../openapi/test-support/match-document';
import { useApi } from '../../test-support/harness';

/** POST /api/v1/templates/preview: unsaved template content rendered for the editor (docs/templates.md "Preview"). */
describe('template preview', () => {
  const api = useApi();
  let token: string;
  let channelId: number;

  beforeAll(async () => {
    const tenant = await api.fixtures.aTenant();
    token = tenant.token;
    channelId = tenant.channel.id;
  });

  const preview = (body: unknown, as = token) =>
    request(api.app)
      .post('/api/v1/templates/preview')
      .set('Authorization', `Bearer ${as}`)
      .send(body as object);

  it('renders subject, preheader, text and HTML for the sample subscriber, as a broadcast written from it would be, and stores nothing', async () => {
    const res = await preview({
      subject: 'Hello {{ subscriber.first_name }}',
      preheader: 'Inside: news',
      body: 'Hi {{ subscriber.first_name }} {{ subscriber.last_name }}',
      html_body: '<html><body><p>{{ subscriber.email }} {{ subscriber.tags | join: "," }}</p><a href="https://example.com/a">A</a></body></html>',
    });
    expect(res.status).toBe(200);
    expectResponseMatchesDocument(res);
    expect(res.body).toMatchObject({ subject: 'Hello Jane', preheader: 'Inside: news', text: 'Hi Jane Doe' });
    expect(res.body.html).toContain('<p>jane.doe@example.com sample</p>');
    expect(res.body.html).toContain('href="https://example.com/a"');
    expect(res.body.html).toContain('Inside: news');
    expect(res.body.html).not.toMatch(/\/t\/[oc]\//);
    expect(await api.database.db('templates').where({ channel_id: channelId })).toEqual([]);
  });

  it("takes the subscriber's fields it is given (HTML-escaped in HTML), a body alone becomes the HTML part, nested under template too", async () => {
    const res = await preview({
      template: {
        subject: '{{ subscriber.custom_data.plan }}',
        body: 'Hi {{ subscriber.first_name }}',
        subscriber: { first_name: '<Ann>', custom_data: { plan: 'gold' } },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ subject: 'gold', preheader: null, text: 'Hi <Ann>' });
    expect(res.body.html).toContain('Hi &lt;Ann&gt;');
    expect(res.body.warnings).toBeUndefined();
  });

  it('renders a confirmation template as the double opt-in email, with a placeholder link and the channel name', async () => {
    const res = await preview({
      template_purpose: 'confirmation',
      subject: 'Confirm {{ channel.name }}',
      body: 'Open {{ confirmation_url }}',
    });
    expect(res.status).toBe(200);
    const channel = await api.database.db('channels').where({ id: channelId }).first();
    expect(res.body.subject).toBe(`Confirm ${channel.name}`);
    expect(res.body.text).toBe('Open https://example.com/preview-link');
    expect(res.body.html).toContain('Open https://example.com/preview-link');
  });

  it("answers invalid Liquid with the save's 422, each field with the parser's line and column", async () => {
    const res = await preview({ subject: 'Hi {{ subscriber.first_name', body: 'fine', html_body: '<p>\n  {% if x %}\n</p>' });
    expect(res.status).toBe(422);
    expectResponseMatchesDocument(res);
    expect(Object.keys(res.body.errors).sort()).toEqual(['html_body', 'subject']);
    expect(res.body.errors.subject).toEqual([expect.stringMatching(/^is not valid Liquid: .*line:1, col:4$/)]);
    expect(res.body.errors.html_body).toEqual(['is not valid Liquid: tag {% if x %} not closed, line:2, col:3']);
    // The same message as a save of the same content.
    const saved = await request(api.app)
      .post('/api/v1/templates')
      .set('Authorization', `Bearer ${token}`)
      .send({ label: 'L', html_body: '<p>\n  {% if x %}\n</p>' });
    expect([saved.status, saved.body.errors.html_body]).toEqual([422, res.body.errors.html_body]);
  });

  it('answers a runtime failure as 422 with the reason, and bad input as 422 naming the field', async () => {
    // Parses, fails only when rendered (the file system is empty): the field and its position.
    const runtime = await preview({ subject: 'S', body: 'Hi', html_body: '<p>\n{% render "footer" %}</p>' });
    expect([runtime.status, runtime.body]).toEqual([
      422,
      { errors: { html_body: ['cannot be rendered: ENOENT: Failed to lookup "footer" in ".", line:2, col:1'] } },
    ]);
    const shapes = await preview({ subject: 5, subscriber: { tags: 'a', custom_data: [] } });
    expect(shapes.status).toBe(422);
    expect(shapes.body).toEqual({
      errors: { subject: ['must be a string'], 'subscriber.tags': ['must be an array'], 'subscriber.custom_data': ['must be an object'] },
    });
    const purpose = await preview({ template_purpose: 'other' });
    expect([purpose.status, purpose.body]).toEqual([422, { errors: { template_purpose: ['must be one of [broadcast, confirmation]'] } }]);
    const unknown = await preview({ subject: 'S', html: '<p>' });
    expect(unknown.status).toBe(200);
    expect(unknown.body.warnings).toEqual([expect.objectContaining({ code: 'unrecognized_parameter', param: 'html' })]);
  });

  it("bounds a hostile template by the templates thread's time limit", async () => {
    const started = Date.now();
    const res = await preview({ subject: 'S', html_body: HOSTILE_LIQUID });
    expect([res.status, res.body]).toEqual([422, { error: 'Template cannot be rendered: the render took longer than 300 ms' }]);
    expect(Date.now() - started).toBeLessThan(3_000);
    // The api still answers at once.
    const after = await preview({ subject: 'Hi {{ subscriber.first_name }}' });
    expect([after.status, after.body.subject]).toEqual([200, 'Hi Jane']);
  }, 30_000);

  it('needs templates_read: 401 without it, 200 with it alone', async () => {
    const writer = await api.fixtures.aToken(channelId, ['templates_write', 'broadcasts_read']);
    const refused = await preview({ subject: 'S' }, writer);
    expect([refused.status, refused.body]).toEqual([401, { error: 'Unauthorized' }]);
    const reader = await api.fixtures.aToken(channelId, ['templates_read']);
    const res = await preview({ subject: 'S' }, reader);
    expect([res.status, res.body.subject]).toEqual([200, 'S']);
    const none = await request(api.app).post('/api/v1/templates/preview').send({ subject: 'S' });
    expect(none.status).toBe(401);
  });
});
