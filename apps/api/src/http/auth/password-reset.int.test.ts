import { Clock } from '@mailcast/core';
import { parseEmail, startSmtpCapture, type SmtpCapture } from '@mailcast/devkit';
import { eventually, testClock } from '@mailcast/testkit';
import request from 'supertest';
import { expectResponseMatchesDocument } from '../../openapi/test-support/match-document';
import { useApi } from '../../test-support/harness';
import { aUser, signIn } from '../../test-support/users';

jest.setTimeout(120_000);

const HOUR = 60 * 60_000;
const PUBLIC_URL = 'https://mail.example.com';
const SAME = { message: 'If that address has an account, a reset link is on its way' };
const INVALID = { error: 'This reset link is invalid or has expired' };

/**
 * docs/teams.md, Password reset: the link goes by real SMTP through the installation's first
 * active email server, from MAILCAST_SYSTEM_FROM; it works once, for 2 hours; the answer never
 * says whether the address has an account.
 */
describe('password forgot and reset', () => {
  const time = testClock(Date.parse('2026-12-01T08:00:00Z'));
  const api = useApi({
    overrides: [{ token: Clock, value: time.clock }],
    env: { PUBLIC_URL, MAILCAST_SYSTEM_FROM: 'Team Mailcast <accounts@mail.example.com>', RATE_LIMIT_PER_MINUTE: '0' },
  });
  let smtp: SmtpCapture;
  beforeAll(async () => {
    smtp = await startSmtpCapture();
    // The installation's first active server: an inactive one with a lower id is passed over.
    const first = await api.fixtures.aChannel();
    await api.fixtures.aCaptureServer(first.id, 9);
    await api.database.db('email_servers').where({ channel_id: first.id }).update({ active: false });
    await api.fixtures.aCaptureServer((await api.fixtures.aChannel()).id, smtp.port);
  });
  afterAll(() => smtp.close());

  const forgot = (email: string) => request(api.app).post('/auth/password/forgot').send({ email });
  const reset = (token: string, password: string) => request(api.app).post('/auth/password/reset').send({ token, password });
  /** The token of the link in the newest mail to `to`. */
  const linkTo = async (to: string) => {
    const message = await eventually(async () => [...smtp.messages].reverse().find((m) => m.to.includes(to)));
    const email = await parseEmail(message.raw);
    const link = /https:\/\/mail\.example\.com\/app\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(email.text ?? '');
    return { email, token: link![1]! };
  };

  it('mails a one-use link from MAILCAST_SYSTEM_FROM; the reset sets the password, clears a lock and signs every session out', async () => {
    const user = await aUser(api);
    const session = await signIn(api.app, user);
    await api.database
      .db('users')
      .where({ id: user.id })
      .update({ locked_until: new Date(time.current() + HOUR) });
    const res = await forgot(user.email);
    expect(res.status).toBe(202);
    expect(res.body).toEqual(SAME);
    expectResponseMatchesDocument(res);
    const { email, token } = await linkTo(user.email);
    expect(email.from).toEqual({ address: 'accounts@mail.example.com', name: 'Team Mailcast' });
    expect(email.subject).toMatch(/password/i);
    // Only the token's hash is stored.
    const stored = await api.database.db('password_resets').where({ user_id: user.id });
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(token);

    const done = await reset(token, 'my new long password');
    expect(done.status).toBe(200);
    expectResponseMatchesDocument(done);
    expect((await request(api.app).get('/auth/session').set('Cookie', session.cookie)).status).toBe(401);
    expect((await request(api.app).post('/auth/sign_in').send({ email: user.email, password: 'my new long password' })).status).toBe(200);
    const again = await reset(token, 'another long password');
    expect(again.status).toBe(422);
    expect(again.body).toEqual(INVALID);
    expectResponseMatchesDocument(again);
  });

  it('answers an unknown or inactive address exactly as a known one, and mails nothing', async () => {
    const inactive = await aUser(api, { active: false });
    const before = smtp.messages.length;
    for (const address of ['nobody@example.com', inactive.email, 'not an address']) {
      const res = await forgot(address);
      expect([address, res.status, res.body]).toEqual([address, 202, SAME]);
    }
    const known = await aUser(api);
    await forgot(known.email);
    await linkTo(known.email);
    expect(smtp.messages.length).toBe(before + 1);
    expect(await api.database.db('password_resets').where({ user_id: inactive.id })).toHaveLength(0);
  });

  it('a link expires after 2 hours; an unknown token gets the same 422', async () => {
    const user = await aUser(api);
    await forgot(user.email);
    const { token } = await linkTo(user.email);
    time.advance(2 * HOUR + 1000);
    expect((await reset(token, 'my new long password')).body).toEqual(INVALID);
    expect((await reset('A'.repeat(43), 'my new long password')).body).toEqual(INVALID);
    expect((await request(api.app).post('/auth/sign_in').send({ email: user.email, password: user.password })).status).toBe(200);
  });

  it('refuses a short password without using the link up', async () => {
    const user = await aUser(api);
    await forgot(user.email);
    const { token } = await linkTo(user.email);
    const short = await reset(token, 'short');
    expect(short.status).toBe(422);
    expect(short.body.error).toMatch(/too short/);
    expect((await reset(token, 'long enough password')).status).toBe(200);
  });

  it('requires JSON from this origin on forgot and reset', async () => {
    const form = await request(api.app).post('/auth/password/forgot').type('form').send({ email: 'a@example.com' });
    expect(form.status).toBe(403);
    const cross = await request(api.app)
      .post('/auth/password/reset')
      .set('Origin', 'https://evil.example')
      .send({ token: 'x', password: 'long enough password' });
    expect(cross.status).toBe(403);
    expect(cross.body).toEqual({ error: 'Cross-origin request refused' });
    const own = await request(api.app).post('/auth/password/forgot').set('Origin', PUBLIC_URL).send({ email: 'a@example.com' });
    expect(own.status).toBe(202);
  });
});

describe('a reset link that cannot be mailed', () => {
  const api = useApi({ env: { RATE_LIMIT_PER_MINUTE: '0' } });

  it('still answers 202 (the answer never depends on the mail), and logs why it was not sent', async () => {
    const user = await aUser(api);
    const res = await request(api.app).post('/auth/password/forgot').send({ email: user.email });
    expect(res.status).toBe(202);
    expect(res.body).toEqual(SAME);
    await eventually(async () => api.logs.find((l) => l.message === 'password reset email not sent'));
  });
});

describe('sign-in time does not tell whether an account exists', () => {
  const api = useApi({ env: { RATE_LIMIT_PER_MINUTE: '0' } });

  it('spends the argon2 work on an unknown address too', async () => {
    const user = await aUser(api);
    const timed = async (email: string) => {
      const start = process.hrtime.bigint();
      expect((await request(api.app).post('/auth/sign_in').send({ email, password: 'wrong password!!' })).status).toBe(401);
      return Number(process.hrtime.bigint() - start) / 1e6;
    };
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    // Warm both paths (the dummy hash is made on the first check), then interleave.
    await timed(user.email);
    await timed('nobody@example.com');
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 5; i++) {
      known.push(await timed(user.email));
      unknown.push(await timed(`nobody${i}@example.com`));
    }
    // Without the dummy check an unknown address answers in a few milliseconds, the known one in
    // an argon2 check (hundreds): the ratio would be far below a half.
    expect(median(unknown) / median(known)).toBeGreaterThan(0.5);
    expect(median(unknown) / median(known)).toBeLessThan(2);
  });
});
