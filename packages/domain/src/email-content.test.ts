import {
  allowedCustomHeaders,
  appendToBody,
  htmlToText,
  insertPreheader,
  linkIdentifier,
  looksLikeHtml,
  rewriteLinks,
  textToHtml,
  trackableLinks,
} from './email-content';

describe('email content', () => {
  it('tells HTML from plain text', () => {
    expect(looksLikeHtml('<p>Hi</p>')).toBe(true);
    expect(looksLikeHtml('1 < 2 and 3 > 2')).toBe(false);
  });

  it('turns plain text into escaped paragraphs with linked URLs', () => {
    expect(textToHtml('Hi <Ann> & co\nline two\n\nSee https://example.com/a?b=1&c=2.')).toBe(
      '<p>Hi &lt;Ann&gt; &amp; co<br>\nline two</p>\n<p>See <a href="https://example.com/a?b=1&amp;c=2">https://example.com/a?b=1&amp;c=2</a>.</p>',
    );
  });

  it('derives a text part from HTML', () => {
    const html =
      '<html><head><style>p{}</style></head><body><h1>Title</h1><p>Read <a href="https://x.test/a?b=1&amp;c=2">this</a> &amp; that</p><ul><li>one</li></ul></body></html>';
    expect(htmlToText(html)).toBe('Title\n\nRead this (https://x.test/a?b=1&c=2) & that\n\n- one');
  });

  it('finds the static http(s) links only, once each, decoded', () => {
    const source =
      '<a href="https://x.test/a?b=1&amp;c=2">a</a> <a href="https://x.test/a?b=1&amp;c=2">again</a> <a href=\'http://y.test\'>y</a> <a href="mailto:a@b.test">m</a> <a href="https://x.test/{{ subscriber.email }}">p</a>';
    expect(trackableLinks(source)).toEqual(['https://x.test/a?b=1&c=2', 'http://y.test']);
    expect(trackableLinks('Plain https://z.test/page and more')).toEqual(['https://z.test/page']);
  });

  it('rewrites the links it is asked to and leaves the rest', () => {
    const html = '<a class="x" href="https://x.test/a?b=1&amp;c=2">a</a><a href="https://other.test">o</a>';
    const out = rewriteLinks(html, (url) => (url === 'https://x.test/a?b=1&c=2' ? 'https://t.test/c/1?q=a&b' : null));
    expect(out).toBe('<a class="x" href="https://t.test/c/1?q=a&amp;b">a</a><a href="https://other.test">o</a>');
  });

  it('gives each URL a short stable identifier', () => {
    expect(linkIdentifier('https://x.test')).toBe(linkIdentifier('https://x.test'));
    expect(linkIdentifier('https://x.test')).not.toBe(linkIdentifier('https://y.test'));
    expect(linkIdentifier('https://x.test')).toMatch(/^[A-Za-z0-9_-]{12}$/);
  });

  it('puts the preheader first in the body and appendices before </body>', () => {
    expect(insertPreheader('<body class="a"><p>x</p></body>', 'Soon & now')).toBe(
      '<body class="a"><div style="display:none;max-height:0;overflow:hidden;opacity:0;mso-hide:all">Soon &amp; now</div><p>x</p></body>',
    );
    expect(appendToBody('<body><p>x</p></body>', '<img>')).toBe('<body><p>x</p><img></body>');
    expect(appendToBody('<p>x</p>', '<img>')).toBe('<p>x</p><img>');
  });

  it('keeps only custom headers that cannot change what the message is', () => {
    expect(
      allowedCustomHeaders([
        { key: 'X-Campaign', value: 'spring' },
        { key: 'From', value: 'evil@x.test' },
        { key: 'message-id', value: '<x@y>' },
        { key: 'X-Injected', value: 'a\r\nBcc: evil@x.test' },
        { key: 'Bad Name', value: 'v' },
        { key: 'List-Unsubscribe', value: '<https://evil.test>' },
        { key: 'Return-Path', value: '<evil@x.test>' },
        { key: 'Resent-From', value: 'evil@x.test' },
        { key: 'DKIM-Signature', value: 'v=1' },
        { key: 'Content-Disposition', value: 'attachment' },
        { key: 'MIME-Version', value: '2.0' },
        { key: 'Received', value: 'from x' },
        { key: 'Sender', value: 'evil@x.test' },
      ]),
    ).toEqual({ 'X-Campaign': 'spring' });
  });
});
