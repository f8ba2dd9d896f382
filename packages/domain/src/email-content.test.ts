import { allowedCustomHeaders, editHtml, isTrackableUrl, linkIdentifier, preheaderHtml, subjectLine, textToHtml } from './email-content';

describe('email content', () => {
  it('turns plain text into escaped paragraphs with linked URLs', () => {
    expect(textToHtml('Hi <Ann> & co\nline two\n\nSee https://example.com/a?b=1&c=2.')).toBe(
      '<p>Hi &lt;Ann&gt; &amp; co<br>\nline two</p>\n<p>See <a href="https://example.com/a?b=1&amp;c=2">https://example.com/a?b=1&amp;c=2</a>.</p>',
    );
  });

  it('tracks static http(s) links only', () => {
    expect(isTrackableUrl('https://x.test/a')).toBe(true);
    expect(isTrackableUrl('HTTP://x.test')).toBe(true);
    expect(isTrackableUrl('mailto:a@b.test')).toBe(false);
    expect(isTrackableUrl('https://x.test/{{ subscriber.email }}')).toBe(false);
    expect(isTrackableUrl('https://x.test/{% if a %}b{% endif %}')).toBe(false);
  });

  it('applies edits at source positions, insertions in the order given', () => {
    const html = '<body><a href="x">a</a></body>';
    expect(
      editHtml(html, [
        { start: 23, end: 23, text: '[unsub]' },
        { start: 9, end: 17, text: 'href="y"' },
        { start: 6, end: 6, text: '[pre]' },
        { start: 23, end: 23, text: '[pixel]' },
      ]),
    ).toBe('<body>[pre]<a href="y">a</a>[unsub][pixel]</body>');
    expect(
      editHtml('', [
        { start: 0, end: 0, text: 'a' },
        { start: 0, end: 0, text: 'b' },
      ]),
    ).toBe('ab');
  });

  it('gives each URL a short stable identifier', () => {
    expect(linkIdentifier('https://x.test')).toBe(linkIdentifier('https://x.test'));
    expect(linkIdentifier('https://x.test')).not.toBe(linkIdentifier('https://y.test'));
    expect(linkIdentifier('https://x.test')).toMatch(/^[A-Za-z0-9_-]{12}$/);
  });

  it('hides the preheader, escaped', () => {
    expect(preheaderHtml('Soon & now')).toBe('<div style="display:none;max-height:0;overflow:hidden;opacity:0;mso-hide:all">Soon &amp; now</div>');
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
        { key: 'X-PM-Metadata-mailcast-message-id', value: '<1.2.x@y>' },
        { key: 'X-PM-Metadata-Campaign', value: 'spring' },
      ]),
    ).toEqual({ 'X-Campaign': 'spring', 'X-PM-Metadata-Campaign': 'spring' });
  });
});

describe('subjectLine', () => {
  it.each([
    ['Hello\r\nBcc: evil@x.test', 'Hello Bcc: evil@x.test'],
    ['  Welcome,\tAda \n Lovelace  ', 'Welcome, Ada Lovelace'],
    ['Plain', 'Plain'],
  ])('makes %j one header line', (rendered, line) => {
    expect(subjectLine(rendered)).toBe(line);
  });
});
