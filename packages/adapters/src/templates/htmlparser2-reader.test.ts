import { leastCpuMs } from '@mailcast/testkit/timing';
import { Htmlparser2Reader } from './htmlparser2-reader';

const reader = new Htmlparser2Reader();

describe('Htmlparser2Reader', () => {
  it('tells HTML from plain text', () => {
    expect(reader.isHtml('<p>Hi</p>')).toBe(true);
    expect(reader.isHtml('Hi <br/> there')).toBe(true);
    expect(reader.isHtml('1 < 2 and 3 > 2')).toBe(false);
    expect(reader.isHtml('an unclosed <a href="x')).toBe(false);
  });

  it('derives a text part from HTML', () => {
    const html =
      '<html><head><style>p{}</style><title>T</title></head><body><h1>Title</h1><p>Read <a href="https://x.test/a?b=1&amp;c=2">this</a> &amp; that</p><ul><li>one</li></ul><script>x()</script></body></html>';
    expect(reader.read(html).text).toBe('Title\n\nRead this (https://x.test/a?b=1&c=2) & that\n\n- one');
  });

  it('gives a link whose label is its URL, or empty, as the URL alone; keeps line breaks', () => {
    const html = '<p><a href="https://a.test">https://a.test</a> <a href="https://b.test"><img src="x"></a></p>a<br>b   \t\n\n\n\nc';
    expect(reader.read(html).text).toBe('https://a.test https://b.test\n\na\nb\n\nc');
  });

  it('reports each <a href>, decoded, with the source range of its href attribute', () => {
    const html = '<a class="x" href="https://x.test/a?b=1&amp;c=2">a</a><A HREF=http://y.test>y</A><a name="n">n</a><a href href="z">z</a>';
    const { links } = reader.read(html);
    expect(links.map((l) => l.url)).toEqual(['https://x.test/a?b=1&c=2', 'http://y.test', '']);
    expect(links.map((l) => html.slice(l.start, l.end))).toEqual(['href="https://x.test/a?b=1&amp;c=2"', 'HREF=http://y.test', 'href']);
  });

  it('finds where the body starts and ends', () => {
    const html = '<html><BODY class="a"><p>x</p></Body ></html>';
    const doc = reader.read(html);
    expect(html.slice(0, doc.bodyStart!)).toBe('<html><BODY class="a">');
    expect(html.slice(doc.bodyEnd!)).toBe('</Body ></html>');
    expect(reader.read('<p>x</p>')).toMatchObject({ bodyStart: null, bodyEnd: null });
  });

  // The inputs that made the regular expressions it replaced run for seconds to minutes; a
  // quadratic reader would take seconds here too. The two bodies are timed per recipient
  // in broadcast-rendering-time.test.ts.
  it.each([
    ['<a href=" × 1000', '<a href="'.repeat(1000)],
    ['<a href=" × 1000 after a body', '<body><p>x</p>' + '<a href="'.repeat(1000)],
    ['500 KB of <a', '<a'.repeat(250_000)],
    ['500 KB of <a followed by spaces', '<a '.repeat(170_000)],
    ['500 KB of <body', '<body'.repeat(100_000)],
    ['500 KB of blanks before a letter', ' '.repeat(500_000) + 'x'],
    ['unclosed comments and quotes', '<!--'.repeat(50_000) + "<a href='".repeat(50_000)],
  ])('reads %s in linear time (under 300 ms of CPU)', (_case, html) => {
    reader.read(html); // warm-up: the first call compiles the tokenizer
    expect(leastCpuMs(() => reader.isHtml(html) && reader.read(html))).toBeLessThan(300);
  });
});
