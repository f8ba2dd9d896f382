import type { OutgoingEmail } from '@mailcast/core';
import type { SendMailOptions } from 'nodemailer';
import { randomBytes } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import * as mimeFuncs from 'nodemailer/lib/mime-funcs';
import * as qp from 'nodemailer/lib/qp';

/**
 * Composing a message (docs/broadcasts-and-sending.md, "The mailer"). nodemailer's MailComposer builds a
 * tree of streams per message, a large share of what an SMTP thread spends per message
 * (bench/NOTES.md). The shape every Mailcast message has
 * (headers, a text part and an optional HTML alternative, UTF-8) is written here directly with
 * nodemailer's own encoders (RFC 2047 words, quoted-printable, header folding). Anything outside
 * that shape (an address that needs quoting or IDNA, a control character in a header) is left to
 * MailComposer, so the fast path never has to be clever.
 */

/** An address that needs no quoting, no comments and no IDNA: written as it is. */
const PLAIN_ADDRESS = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;
const HEADER_NAME = /^[!-9;-~]+$/;
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\x00-\x1f\x7f]/;
const ASCII = /^[\x20-\x7e]*$/;
const SIMPLE_NAME = /^[\w ]*$/;
/** Headers the composer writes itself; the same names among `headers` go to MailComposer. */
const OWN_HEADERS = new Set(['from', 'to', 'reply-to', 'subject', 'message-id', 'date', 'mime-version', 'content-type', 'content-transfer-encoding']);

// Boundaries: unguessable per process, unique per message, and checked against the content.
const SALT = randomBytes(8).toString('hex');
let sequence = 0;

/** nodemailer's rule: Q-encoding when Latin letters outnumber the rest, else base64. */
function wordEncoding(value: string): 'Q' | 'B' {
  let nonLatin = 0;
  let latin = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0x80 || (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || code === 0x7f) nonLatin++;
    else if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) latin++;
  }
  return nonLatin < latin ? 'Q' : 'B';
}

const encodeWords = mimeFuncs.encodeWords as (value: string, encoding: 'Q' | 'B', maxLength: number, encodeAll: boolean) => string;

/** An unstructured header value, or null when it holds a control character. */
function unstructured(value: string): string | null {
  if (CONTROL.test(value)) return null;
  return ASCII.test(value) ? value : encodeWords(value, wordEncoding(value), 52, true);
}

function mailbox(address: string, name?: string | null): string | null {
  if (!PLAIN_ADDRESS.test(address)) return null;
  if (!name) return address;
  if (CONTROL.test(name)) return null;
  if (SIMPLE_NAME.test(name)) return `${name} <${address}>`;
  if (ASCII.test(name)) return `"${name.replace(/([\\"])/g, '\\$1')}" <${address}>`;
  return `${mimeFuncs.encodeWord(name, wordEncoding(name), 52)} <${address}>`;
}

/**
 * A text part's content: line ends as CRLF, quoted-printable, lines of at most 76. A CR that ends
 * no line is content, and is encoded like any other control character.
 */
const quotedPrintable = (content: string) => qp.wrap(qp.encode(content.replace(/\r?\n/g, '\r\n')).replace(/\r(?!\n)/g, '=0D'), 76);

const part = (type: 'plain' | 'html', content: string) =>
  `Content-Type: text/${type}; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n${quotedPrintable(content)}`;

/** The message in the fast path's shape, or null when it is outside it. */
export function composeDirect(email: OutgoingEmail, date: Date = new Date()): Buffer | null {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(email.headers ?? {})) {
    if (!HEADER_NAME.test(name) || OWN_HEADERS.has(name.toLowerCase())) return null;
    const encoded = unstructured(value);
    if (encoded === null) return null;
    if (encoded.trim() !== '') lines.push(`${name}: ${encoded}`);
  }
  const from = mailbox(email.from.email, email.from.name);
  const to = mailbox(email.to);
  const replyTo = email.replyTo ? mailbox(email.replyTo) : undefined;
  const subject = unstructured(email.subject);
  if (from === null || to === null || replyTo === null || subject === null || CONTROL.test(email.messageId) || !/^<[^<>\s]+>$/.test(email.messageId))
    return null;
  lines.push(`From: ${from}`, `To: ${to}`);
  if (replyTo !== undefined) lines.push(`Reply-To: ${replyTo}`);
  if (subject.trim() !== '') lines.push(`Subject: ${subject}`);
  lines.push(`Message-ID: ${email.messageId}`, `Date: ${date.toUTCString().replace(/GMT/, '+0000')}`, 'MIME-Version: 1.0');
  const head = lines.map((line) => mimeFuncs.foldLines(line, 76)).join('\r\n');
  if (!email.html) return Buffer.from(`${head}\r\n${part('plain', email.text)}\r\n`);
  const boundary = `--_mc-${SALT}-${(++sequence).toString(36)}`;
  const text = part('plain', email.text);
  const html = part('html', email.html);
  if (text.includes(boundary) || html.includes(boundary)) return null;
  return Buffer.from(
    `${head}\r\nContent-Type: multipart/alternative;\r\n boundary="${boundary}"\r\n\r\n` +
      `--${boundary}\r\n${text}\r\n--${boundary}\r\n${html}\r\n--${boundary}--\r\n`,
  );
}

/** An outgoing email as nodemailer's message options. */
export function nodemailerMessage(email: OutgoingEmail): SendMailOptions {
  return {
    messageId: email.messageId,
    from: email.from.name ? { name: email.from.name, address: email.from.email } : email.from.email,
    to: email.to,
    ...(email.replyTo ? { replyTo: email.replyTo } : {}),
    subject: email.subject,
    text: email.text,
    ...(email.html ? { html: email.html } : {}),
    headers: { ...email.headers },
  };
}

/** The message as the server receives it: the fast path, else nodemailer's MailComposer. */
export async function composeMessage(email: OutgoingEmail): Promise<Buffer> {
  return composeDirect(email) ?? (await new MailComposer(nodemailerMessage(email)).compile().build());
}
