import { NodemailerMailer } from '@mailcast/adapters';
import { GetEmailServer } from '@mailcast/core';
import { startSmtpCapture, type SmtpCapture } from '@mailcast/devkit';
import { findPlaintext } from '@mailcast/testkit';
import request from 'supertest';
import { startApi, type ApiHarness } from '../../test-support/harness';

// mailauth is an independent DKIM implementation; this sub-path works on Node 20.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { dkimVerify } = require('mailauth/lib/dkim/verify') as {
  dkimVerify(
    input: Buffer,
    options: { resolver: (name: string, type: string) => Promise<string[][]> },
  ): Promise<{
    results: Array<{ signingDomain: string; selector: string; status: { result: string } }>;
  }>;
};

/** DKIM (docs/email-servers.md): a generated key signs what goes through the server. */
describe('DKIM keys of an email server', () => {
  let api: ApiHarness;
  let smtp: SmtpCapture;
  let mailer: NodemailerMailer;
  let token: string;
  let channelId: number;

  beforeAll(async () => {
    api = await startApi();
    smtp = await startSmtpCapture();
    mailer = new NodemailerMailer({ allowPrivate: true, allowPlaintext: false }, 1);
    ({
      token,
      channel: { id: channelId },
    } = await api.fixtures.aTenant());
  });
  afterAll(async () => {
    await mailer.close();
    await smtp.close();
    await api.close();
  });

  const auth = () => ({ Authorization: `Bearer ${token}` });

  it('publishes an RSA record, keeps the private key sealed, and every message verifies against the record', async () => {
    const created = await request(api.app)
      .post('/api/v1/email_servers')
      .set(auth())
      .send({ email_server: { host: '127.0.0.1', port: smtp.port, tls: 'none', from_email: 'news@mail.example.com' } });
    const generated = await request(api.app).post(`/api/v1/email_servers/${created.body.id}/generate_dkim_key`).set(auth()).send({ dkim_selector: 'mc2026' });
    expect(generated.status).toBe(200);
    expect(generated.body).toEqual({
      dkim_domain: 'mail.example.com',
      dkim_selector: 'mc2026',
      dns_record: { name: 'mc2026._domainkey.mail.example.com', type: 'TXT', value: expect.stringMatching(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+=*$/) },
    });
    const read = await request(api.app).get(`/api/v1/email_servers/${created.body.id}`).set(auth());
    expect(read.body).toMatchObject({ dkim_domain: 'mail.example.com', dkim_selector: 'mc2026', dkim_key_present: true });
    expect(JSON.stringify(read.body)).not.toContain('PRIVATE KEY');

    const server = await api.container.resolve(GetEmailServer).execute({ channelId, tokenId: 0, permissions: [] }, { id: created.body.id });
    const pemBody = server.dkimPrivateKey!.split('\n')[1]!;
    expect(await findPlaintext(api.database.db, pemBody)).toEqual([]);

    const outcome = await mailer.send(server, {
      messageId: '<dkim-1@mail.example.com>',
      from: { email: 'news@mail.example.com', name: 'News' },
      to: 'reader@example.org',
      subject: 'Signed',
      text: 'Hello, signed world',
      html: '<p>Hello, signed world</p>',
      headers: { 'List-Unsubscribe': '<https://example.com/u>' },
    });
    expect(outcome.kind).toBe('accepted');
    const [message] = await smtp.waitFor(1);

    const published = new Map([[generated.body.dns_record.name as string, generated.body.dns_record.value as string]]);
    const resolver = async (name: string, type: string) => {
      const record = type === 'TXT' ? published.get(name) : undefined;
      if (record === undefined) throw Object.assign(new Error(`no ${type} record for ${name}`), { code: 'ENOTFOUND' });
      return [[record]];
    };
    const verified = await dkimVerify(message!.raw, { resolver });
    expect(verified.results.map((r) => [r.signingDomain, r.selector, r.status.result])).toEqual([['mail.example.com', 'mc2026', 'pass']]);

    // The same message with its body changed no longer verifies: the check can fail.
    const tampered = Buffer.from(message!.raw.toString('latin1').replace('Hello, signed world', 'Hello, forged world'), 'latin1');
    expect((await dkimVerify(tampered, { resolver })).results[0]!.status.result).not.toBe('pass');
  });

  it('refuses a key without a domain to sign for, and an algorithm it cannot sign with', async () => {
    const created = await request(api.app).post('/api/v1/email_servers').set(auth()).send({ host: '127.0.0.1', port: smtp.port, tls: 'none' });
    const res = await request(api.app).post(`/api/v1/email_servers/${created.body.id}/generate_dkim_key`).set(auth()).send({});
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ errors: { dkim_domain: ["can't be blank (the server has no from_email to take it from)"] } });
    const ed = await request(api.app)
      .post(`/api/v1/email_servers/${created.body.id}/generate_dkim_key`)
      .set(auth())
      .send({ algorithm: 'ed25519', dkim_domain: 'example.com' });
    expect([ed.status, ed.body]).toEqual([422, { error: 'Algorithm must be rsa (Ed25519 signing is not supported)' }]);
    expect((await request(api.app).get(`/api/v1/email_servers/${created.body.id}`).set(auth())).body.dkim_key_present).toBe(false);
  });
});
