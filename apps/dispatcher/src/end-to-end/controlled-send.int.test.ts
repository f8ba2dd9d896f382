import { MailcastClient } from '@mailcast/client';
import { verifyWebhook } from '@mailcast/domain';
import { parseEmail, type ParsedEmail } from '@mailcast/devkit';
import { eventually } from '@mailcast/testkit';
import { documentCheckingFetch } from '../../../api/src/openapi/test-support/client';
import { startStack, type Stack } from '../test-support/stack';

/**
 * The whole product once, end to end, driven through @mailcast/client (every request and answer
 * checked against the OpenAPI document): subscribers and a broadcast created over HTTP, sent by
 * the dispatcher's workers through a real SMTP server, the links of the received emails opened
 * and clicked, then every statistic checked against hand-counted numbers, the business metrics
 * read from /metrics, and the signed webhooks received.
 */
describe('a controlled send, end to end', () => {
  let stack: Stack;
  let client: MailcastClient;

  beforeAll(async () => {
    // The bounce@ address is refused permanently, as a real server refuses an unknown mailbox.
    stack = await startStack({
      verdictFor: (to) => (to.startsWith('bounce@') ? { code: 550, message: '5.1.1 No such user' } : undefined),
    });
    client = new MailcastClient({ baseUrl: stack.url, token: stack.token, fetch: documentCheckingFetch() });
  }, 30_000);
  afterAll(() => stack.close());

  const PEOPLE = ['ann', 'bob', 'cid', 'dee', 'bounce'];
  const emailOf = (name: string) => `${name}@example.com`;
  let secret: string;
  let broadcastId: number;
  const mail = new Map<string, ParsedEmail>();

  it('creates the audience and a webhook endpoint through the client', async () => {
    const endpoint = await client.webhookEndpoints.create({
      url: stack.receiverUrl,
      event_types: ['email.bounced', 'email.opened', 'email.clicked', 'broadcast.partial_failure', 'subscriber.unsubscribed'],
    });
    secret = endpoint.secret;
    for (const name of PEOPLE) {
      const created = await client.subscribers.create({ email: emailOf(name), first_name: name.toUpperCase(), tags: ['e2e'] });
      expect(created).toMatchObject({ email: emailOf(name), is_active: true });
    }
    await client.subscribers.create({ email: emailOf('eve'), first_name: 'EVE' });
    await client.subscribers.deactivate(emailOf('eve'));
    const listed = await client.subscribers.list({ tags: ['e2e'] });
    expect(listed.pagination.total).toBe(5);
  });

  it('sends to every active subscriber exactly once, personalised, and never to the inactive one', async () => {
    const created = await client.broadcasts.create({
      name: 'E2E',
      subject: 'Hello {{ subscriber.first_name }}',
      body: 'Hi {{ subscriber.first_name }}, see https://example.com/a',
      html_body: '<p>Hi {{ subscriber.first_name }}</p><a href="https://example.com/a">A</a> <a href="https://example.com/b">B</a>',
      track_opens: true,
      track_clicks: true,
      include_unsubscribe_link: true,
    });
    broadcastId = created.id;
    expect(await client.broadcasts.send(broadcastId)).toMatchObject({ id: broadcastId, status: 'scheduled' });
    const done = await eventually(
      async () => {
        const b = await client.broadcasts.get(broadcastId);
        return ['sent', 'partial_failure', 'failed'].includes(b.status) ? b : undefined;
      },
      30_000,
      200,
    );
    // One hard bounce among five: partial failure (docs/broadcasts-and-sending.md: final status).
    expect(done).toMatchObject({ status: 'partial_failure', total_recipients: 5, broadcast_recipients_count: 5, percentage_complete: 100 });

    const delivered = stack.smtp.messages.filter((m) => m.to[0]!.endsWith('@example.com'));
    expect(delivered.map((m) => m.to[0]).sort()).toEqual(['ann', 'bob', 'cid', 'dee'].map(emailOf));
    for (const m of delivered) mail.set(m.to[0]!, await parseEmail(m.raw));
    expect(mail.get(emailOf('ann'))!.subject).toBe('Hello ANN');
    expect(mail.get(emailOf('ann'))!.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    // The bounced subscriber was deactivated (docs/broadcasts-and-sending.md: hard bounce).
    expect(await client.subscribers.find(emailOf('bounce'))).toMatchObject({ is_active: false });
  });

  const pixelOf = (name: string) => /<img src="([^"]+)"/.exec(mail.get(emailOf(name))!.html!)![1]!;
  const linksOf = (name: string) => [...mail.get(emailOf(name))!.html!.matchAll(/href="([^"]*\/t\/c\/[^"]+)"/g)].map((m) => m[1]!);
  const unsubscribeOf = (name: string) => /<(http[^>]+)>/.exec(mail.get(emailOf(name))!.headers['list-unsubscribe']!)![1]!;

  it('records opens, clicks and an unsubscribe through the links of the received emails', async () => {
    const pixel = await fetch(pixelOf('ann'));
    expect(pixel.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    await fetch(pixelOf('ann'));
    await fetch(pixelOf('bob'));
    const [aOfAnn, bOfAnn] = linksOf('ann');
    const [aOfBob] = linksOf('bob');
    for (const link of [aOfAnn!, aOfAnn!, bOfAnn!, aOfBob!]) {
      const res = await fetch(link, { redirect: 'manual' });
      expect(res.status).toBe(302);
    }
    expect((await fetch(aOfAnn!, { redirect: 'manual' })).headers.get('location')).toBe('https://example.com/a');
    // The page's button: a one-click POST this soon after delivery, or with Node's agent, would
    // be held as a machine's (docs/engagement.md).
    const unsubscribed = await fetch(unsubscribeOf('cid'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'confirmed_by=person',
    });
    expect(unsubscribed.status).toBe(200);
    expect(await client.subscribers.find(emailOf('cid'))).toMatchObject({ is_active: false, unsubscribed_at: expect.any(String) });
  });

  it('counts every statistic exactly as the contract defines it', async () => {
    const stats = await client.broadcasts.statistics(broadcastId);
    expect(stats).toMatchObject({
      broadcast_id: broadcastId,
      status: 'partial_failure',
      total_recipients: 5,
      tracking: { track_opens: true, track_clicks: true },
      // 4 accepted of 5: 80 %; every other rate is of the 4 sent.
      delivery: { sent: 4, failed: 1, delivery_rate: 80 },
      engagement: {
        opens: { count: 2, rate: 50 },
        clicks: { count: 2, rate: 50 },
        unique_links_clicked: 2,
        // Node's fetch names itself "node", an agent on the bot list: machines all (docs/engagement.md).
        human_opens: { count: 0, rate: 0 },
        human_clicks: { count: 0, rate: 0 },
      },
      issues: { bounces: { count: 1, rate: 25 }, complaints: { count: 0, rate: 0 }, unsubscribes: { count: 1, rate: 25 } },
    });

    // A repeat of the same recipient's last engagement within 60 s is one (docs/security.md): Ann's
    // second pixel load and her second click on a in a row are not counted; her click on a after b is.
    const links = await client.broadcasts.links(broadcastId);
    expect(links).toMatchObject({ broadcast_id: broadcastId, total_links: 2, total_clicks: 4 });
    expect(links.links.map((l) => [l.url, l.total_clicks, l.unique_clicks, l.click_rate])).toEqual([
      ['https://example.com/a', 3, 2, 50],
      ['https://example.com/b', 1, 1, 25],
    ]);

    const timeline = await client.broadcasts.timeline(broadcastId, { timeframe: '60m' });
    const total = (name: string) => Object.values(timeline.series.find((s) => s.name === name)!.data).reduce((a, b) => a + b, 0);
    expect({ processed: total('Processed'), delivered: total('Delivered'), opens: total('Opens'), clicks: total('Clicks'), bounces: total('Bounces') }).toEqual(
      {
        processed: 5,
        delivered: 4,
        opens: 2,
        clicks: 4,
        bounces: 1,
      },
    );
  });

  it('moves the business metrics on /metrics', async () => {
    const text = await (await fetch(`${stack.url}/metrics`)).text();
    const value = (series: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(`${series} `))
          ?.split(' ')[1],
      );
    expect(value('mailcast_emails{outcome="sent",service="api"}')).toBe(4);
    expect(value('mailcast_emails{outcome="bounced",service="api"}')).toBe(1);
    expect(value('mailcast_http_requests_total{method="POST",route="/api/v1/broadcasts/:id/send_broadcast",status="200",service="api"}')).toBe(1);
  });

  it('delivers the signed webhooks of what happened', async () => {
    const types = await eventually(
      async () => {
        const seen = stack.hooks.map((h) => JSON.parse(h.body).type as string);
        const wanted = ['email.bounced', 'email.opened', 'email.clicked', 'broadcast.partial_failure', 'subscriber.unsubscribed'];
        return wanted.every((t) => seen.includes(t)) ? seen : undefined;
      },
      20_000,
      100,
    );
    expect(types.filter((t) => t === 'email.opened')).toHaveLength(2);
    expect(types.filter((t) => t === 'email.clicked')).toHaveLength(4);
    for (const hook of stack.hooks) {
      const headers = Object.fromEntries(Object.entries(hook.headers).map(([k, v]) => [k, String(v)]));
      expect(verifyWebhook(secret, headers, hook.body, { toleranceSeconds: 300 })).toEqual({
        ok: true,
        id: String(JSON.parse(hook.body).id),
        timestamp: expect.any(Number),
      });
    }
    const bounced = JSON.parse(stack.hooks.find((h) => JSON.parse(h.body).type === 'email.bounced')!.body);
    expect(bounced.data).toMatchObject({ email: emailOf('bounce'), receipted_type: 'Broadcast', receipted_id: broadcastId, bounced: true });
  });
});
