import request from 'supertest';
import { expectResponseMatchesDocument } from '../../openapi/test-support/match-document';
import { useApi } from '../../test-support/harness';

/** POST /api/v1/broadcasts/:id/preview: the email one subscriber would receive, untracked. */
describe('broadcast preview', () => {
  const api = useApi();
  let token: string;
  let channelId: number;
  let broadcastId: number;

  beforeAll(async () => {
    const tenant = await api.fixtures.aTenant();
    token = tenant.token;
    channelId = tenant.channel.id;
    await api.fixtures.aSubscriber(channelId, 'ann@example.com', { firstName: 'Ann', customData: { plan: 'gold' } });
    const broadcast = await api.fixtures.aBroadcast(channelId, {
      subject: 'Hello {{ subscriber.first_name }}',
      preheader: 'Inside: news',
      body: 'Hi {{ subscriber.first_name }}',
      htmlBody: '<p>Plan {{ subscriber.custom_data.plan }}</p><a href="https://example.com/a">A</a>',
      trackOpens: true,
      trackClicks: true,
      includeUnsubscribeLink: true,
    });
    broadcastId = broadcast.id;
  });

  const preview = (body: unknown, as = token, id = broadcastId) =>
    request(api.app)
      .post(`/api/v1/broadcasts/${id}/preview`)
      .set('Authorization', `Bearer ${as}`)
      .send(body as object);

  it("renders subject, text and HTML with the subscriber's data, with links untracked and no open pixel", async () => {
    const res = await preview({ email: ' ANN@example.com ' });
    expect(res.status).toBe(200);
    expectResponseMatchesDocument(res);
    expect(res.body).toMatchObject({
      subscriber_email: 'ann@example.com',
      subject: 'Hello Ann',
      preheader: 'Inside: news',
      text: expect.stringContaining('Hi Ann'),
    });
    expect(res.body.html).toContain('<p>Plan gold</p>');
    expect(res.body.html).toContain('href="https://example.com/a"');
    expect(res.body.html).toContain('Inside: news');
    expect(res.body.html).not.toMatch(/\/t\/[oc]\//);
    // Nothing recorded: no link saved for the broadcast, no event.
    expect(await api.database.db('broadcast_links').where({ broadcast_id: broadcastId })).toEqual([]);
    expect(await api.database.db('email_events').where({ broadcast_id: broadcastId })).toEqual([]);
  });

  it("answers the API's errors: unknown subscriber or broadcast 404, no email 422, a token without subscribers_read 401", async () => {
    const unknown = await preview({ email: 'nobody@example.com' });
    expect([unknown.status, unknown.body]).toEqual([404, { error: 'Subscriber not found' }]);
    const missing = await preview({});
    expect([missing.status, missing.body]).toEqual([422, { error: 'email parameter is required' }]);
    const other = await api.fixtures.aTenant();
    const foreign = await preview({ email: 'ann@example.com' }, other.token);
    expect([foreign.status, foreign.body]).toEqual([404, { error: 'Broadcast not found' }]);
    const readOnly = await api.fixtures.aToken(channelId, ['broadcasts_read']);
    expect((await preview({ email: 'ann@example.com' }, readOnly)).status).toBe(401);
  });

  it('answers a template that fails to render with a 422 naming the cause', async () => {
    const broken = await api.fixtures.aBroadcast(channelId, { subject: 'Hi {{ subscriber.first_name | no_such_filter }}' });
    const res = await preview({ email: 'ann@example.com' }, token, broken.id);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/^Broadcast cannot be rendered: /);
  });
});
