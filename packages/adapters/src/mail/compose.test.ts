import type { OutgoingEmail } from '@mailcast/core';
import { parseEmail } from '@mailcast/devkit';
import MailComposer from 'nodemailer/lib/mail-composer';
import { composeDirect, composeMessage, nodemailerMessage } from './compose';

const base: OutgoingEmail = {
  messageId: '<42.7.abc@mail.example>',
  from: { email: 'news@example.com', name: 'Example News' },
  to: 'reader@example.org',
  replyTo: 'desk@example.com',
  subject: 'Hello there',
  text: 'Hello there, here is the news.\nhttps://example.com/a',
  html: '<p>Hello there</p><a href="https://example.com/a">Read</a>',
  headers: { 'List-Unsubscribe': '<https://example.com/u/abc>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
};

/** What a mail client reads from a message: the fast path must read the same as MailComposer's. */
async function readBoth(email: OutgoingEmail) {
  const direct = composeDirect(email);
  expect(direct).not.toBeNull();
  const parsed = await parseEmail(direct!);
  const reference = await parseEmail(await new MailComposer(nodemailerMessage(email)).compile().build());
  return { direct: direct!.toString('latin1'), parsed, reference };
}

const essentials = (p: Awaited<ReturnType<typeof parseEmail>>) => ({
  messageId: p.messageId,
  subject: p.subject,
  from: p.from,
  replyTo: p.replyTo,
  text: p.text?.replace(/\r\n/g, '\n').replace(/\n$/, ''),
  html: p.html?.replace(/\r\n/g, '\n').replace(/\n$/, ''),
  to: p.headers.to,
  unsubscribe: p.headers['list-unsubscribe'],
  unsubscribePost: p.headers['list-unsubscribe-post'],
});

describe('composeDirect: the mailer fast path (docs/broadcasts-and-sending.md, The mailer)', () => {
  it.each<[string, Partial<OutgoingEmail>]>([
    ['a plain message', {}],
    ['no HTML part', { html: null }],
    ['no reply-to and no headers', { replyTo: null, headers: {} }],
    [
      'non-ASCII subject, name and bodies',
      { subject: 'Grüße, Zoë 🎉 — ça va?', from: { email: 'news@example.com', name: 'Café Ünïcode' }, text: 'Grüße\r\nZoë 🎉', html: '<p>Grüße — 日本語</p>' },
    ],
    ['a mostly non-Latin subject', { subject: 'Привет, как дела? Новости недели' }],
    ['a name that needs quoting', { from: { email: 'news@example.com', name: 'Doe, "Jane" \\ Co.' } }],
    ['a long subject that folds', { subject: 'word '.repeat(40).trim() }],
    [
      'long lines, dots, "From " and trailing spaces',
      { text: `${'x'.repeat(300)}\n.\n.leading dot\nFrom here   \n= sign =3D\r\n\r\nend`, html: `<p>${'y'.repeat(500)}</p>\n.\n` },
    ],
    ['bare CR and LF line ends', { text: 'a\rb\nc\r\nd' }],
    ['a non-ASCII custom header value', { headers: { 'X-Campaign': 'Été 2026' } }],
  ])('%s reads as MailComposer output does', async (_name, change) => {
    const { direct, parsed, reference } = await readBoth({ ...base, ...change });
    expect(essentials(parsed)).toEqual(essentials(reference));
    // Lines a server takes: CRLF ends, none longer than 998 octets, 7-bit only.
    expect(direct.split('\r\n').every((line) => line.length <= 998 && !line.includes('\n') && !line.includes('\r'))).toBe(true);
    expect([...direct].every((c) => c.charCodeAt(0) < 0x80)).toBe(true);
    expect(direct.endsWith('\r\n')).toBe(true);
  });

  it('gives each message its own boundary', () => {
    const boundary = (raw: Buffer | null) => /boundary="([^"]+)"/.exec(raw!.toString())![1];
    expect(boundary(composeDirect(base))).not.toBe(boundary(composeDirect(base)));
  });

  it.each<[string, Partial<OutgoingEmail>]>([
    ['an address that needs quoting', { to: '"odd local"@example.org' }],
    ['an internationalised domain', { to: 'reader@bücher.example' }],
    ['a line break in the subject', { subject: 'Hello\r\nBcc: victim@example.com' }],
    ['a control character in a header value', { headers: { 'X-Note': 'a\u0007b' } }],
    ['a header the composer writes itself', { headers: { 'Content-Type': 'text/plain' } }],
    ['a header name with a space', { headers: { 'Bad Name': 'x' } }],
  ])('leaves %s to MailComposer', async (_name, change) => {
    const email = { ...base, ...change };
    expect(composeDirect(email)).toBeNull();
    const composed = await composeMessage(email);
    expect(composed.toString()).toEqual(expect.stringContaining('Message-ID: <42.7.abc@mail.example>'));
  });

  it('never lets a header value open a header of its own, on either path', async () => {
    const raw = (await composeMessage({ ...base, subject: 'Hello\r\nBcc: victim@example.com' })).toString();
    expect(raw).not.toMatch(/^Bcc:/m);
  });
});
