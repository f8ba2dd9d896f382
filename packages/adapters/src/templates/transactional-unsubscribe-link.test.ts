import { transactionalUnsubscribeUrl, withUnsubscribeLink } from '@mailcast/core';
import { verifyTransactionalUnsubscribeToken } from '@mailcast/domain';
import { Htmlparser2Reader } from './htmlparser2-reader';

/** A transactional's unsubscribe link with the real HTML reader (docs/transactionals.md "Unsubscribe link"). */
const reader = new Htmlparser2Reader();
const secret = Buffer.alloc(32, 3);

describe('transactional unsubscribe link', () => {
  it('is made from the row alone, so every attempt renders the same URL; none without the flag', () => {
    const row = { id: 17, includeUnsubscribeLink: true, unsubscribeSecret: secret };
    const url = transactionalUnsubscribeUrl('https://mail.example.test/', row)!;
    expect(url).toMatch(/^https:\/\/mail\.example\.test\/u\/t17-[A-Za-z0-9_-]{22}$/);
    expect(transactionalUnsubscribeUrl('https://mail.example.test', row)).toBe(url);
    expect(verifyTransactionalUnsubscribeToken(secret, url.split('/u/')[1]!)).toBe(true);
    expect(transactionalUnsubscribeUrl('https://mail.example.test', { ...row, unsubscribeSecret: Buffer.alloc(32, 4) })).not.toBe(url);
    expect(transactionalUnsubscribeUrl('https://mail.example.test', { ...row, includeUnsubscribeLink: false })).toBeNull();
  });

  it('puts the HTML link before </body>, or at the end of a fragment; text gets it appended', () => {
    const url = 'https://mail.example.test/u/t1-abc';
    const full = withUnsubscribeLink(reader, url, { text: 'Hi', html: '<html><body><p>Hi</p></body></html>' });
    expect(full.html).toBe(`<html><body><p>Hi</p><p style="font-size:12px;color:#666"><a href="${url}">Unsubscribe</a></p></body></html>`);
    expect(full.text).toBe(`Hi\n\nUnsubscribe: ${url}`);
    expect(full.headers).toEqual({ 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' });
    const fragment = withUnsubscribeLink(reader, url, { text: 'Hi', html: '<p>Hi</p>' });
    expect(fragment.html).toBe(`<p>Hi</p><p style="font-size:12px;color:#666"><a href="${url}">Unsubscribe</a></p>`);
    expect(withUnsubscribeLink(reader, url, { text: 'Hi', html: null }).html).toBeNull();
  });

  it('leaves a part that already shows the URL, HTML-escaped or not, as it is', () => {
    const url = 'https://mail.example.test/base?a=1&b=2/u/t1-abc';
    const parts = { text: `Leave: ${url}`, html: `<a href="${url.replace('&', '&amp;')}">Leave</a>` };
    const out = withUnsubscribeLink(reader, url, parts);
    expect([out.text, out.html]).toEqual([parts.text, parts.html]);
    expect(out.headers['List-Unsubscribe']).toBe(`<${url}>`);
  });
});
