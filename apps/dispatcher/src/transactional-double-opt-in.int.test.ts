import { parseEmail } from '@mailcast/devkit';
import { eventually, PERSON_USER_AGENT } from '@mailcast/testkit';
import { useSendingHarness } from './test-support/sending-harness';

/** `double_opt_in` holds a transactional until the recipient confirms (docs/transactionals.md). */
describe('transactional email with double opt-in (HTTP, dispatcher workers, real SMTP)', () => {
  const h = useSendingHarness();

  const send = (body: Record<string, unknown>) => h.sendTransactional(body);
  const status = async (id: number) => (await h.request('GET', `/api/v1/transactionals/${id}.json`)).body.status as string;
  const to = (address: string) => h.received(address);
  /** The confirmation link opened as a person's browser opens it (a bot's GET only shows a button, docs/engagement.md). */
  const open = (link: string) => fetch(link, { headers: { 'user-agent': PERSON_USER_AGENT } });
  const mail = async (address: string, nth: number) => parseEmail((await eventually(async () => to(address)[nth - 1], 10_000))!.raw);

  it('holds the email, sends a confirmation, and sends the email once the link is opened', async () => {
    const res = await send({ to: 'new@example.com', subject: 'Welcome {{ data.name }}', body: 'Your guide', data: { name: 'Nia' }, double_opt_in: true });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('awaiting_confirmation');
    const confirmation = await mail('new@example.com', 1);
    expect(confirmation.subject).toBe('Please confirm your subscription');
    expect((await h.request('GET', '/api/v1/subscribers/find.json?email=new@example.com')).body).toMatchObject({
      confirmation_status: 'unconfirmed',
      confirmed_at: null,
    });
    // Held: still waiting while the confirmation is unopened (a later email would have arrived by now).
    await send({ to: 'marker@example.com', subject: 'M', body: 'M' });
    await eventually(async () => to('marker@example.com')[0], 10_000);
    expect(to('new@example.com')).toHaveLength(1);
    expect(await status(res.body.id)).toBe('awaiting_confirmation');

    const link = /http\S+\/confirm\/[A-Za-z0-9_-]{43}(?!\/)/.exec(confirmation.text ?? '')![0];
    expect((await open(link)).status).toBe(200);
    const email = await mail('new@example.com', 2);
    expect([email.subject, email.text?.trim()]).toEqual(['Welcome Nia', 'Your guide']);
    await eventually(async () => ((await status(res.body.id)) === 'sent' ? true : undefined));
    expect(to('new@example.com')).toHaveLength(2);
  });

  it('sends at once to a subscriber who has already confirmed', async () => {
    const first = await send({ to: 'known@example.com', subject: 'S1', body: 'B', double_opt_in: true });
    const link = /http\S+\/confirm\/[A-Za-z0-9_-]{43}(?!\/)/.exec((await mail('known@example.com', 1)).text ?? '')![0];
    await open(link);
    await eventually(async () => ((await status(first.body.id)) === 'sent' ? true : undefined));
    const second = await send({ to: 'known@example.com', subject: 'S2', body: 'B', double_opt_in: true });
    expect(second.body.status).toBe('queued');
    expect((await mail('known@example.com', 3)).subject).toBe('S2');
  });

  it('a suppressed address gets neither the confirmation nor the email', async () => {
    await h.request('POST', '/api/v1/suppressions.json', { email: 'nope@example.com' });
    const res = await send({ to: 'nope@example.com', subject: 'S', body: 'B', double_opt_in: true });
    expect(res.body.status).toBe('suppressed');
    expect(
      await h.api.database
        .db('subscriber_confirmations')
        .whereIn('subscriber_id', h.api.database.db('subscribers').select('id').where({ email: 'nope@example.com' }))
        .count(),
    ).toEqual([{ count: 0 }]);
  });
});
