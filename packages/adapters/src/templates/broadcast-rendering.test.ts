import { BroadcastRenderer, type Broadcast } from '@mailcast/core';
import { cpuMsAsync } from '@mailcast/testkit/timing';
import { Htmlparser2Reader } from './htmlparser2-reader';
import { LiquidTemplates } from './liquid-templates';
import { aBroadcast, subscriber } from './test-support/broadcasts';

/** The broadcast renderer with the real Liquid engine and HTML reader (docs/security.md "HTML"). */
const reader = new Htmlparser2Reader();

function rendererFor(broadcast: Broadcast): BroadcastRenderer {
  const links = BroadcastRenderer.trackableLinks(broadcast, reader).map((l, i) => ({ id: i + 1, ...l }));
  return new BroadcastRenderer(broadcast, new LiquidTemplates(), reader, links, 'https://mail.example.test', (id) => `tok${id}`);
}

describe('rendering a broadcast per recipient', () => {
  it('rewrites tracked links, adds the preheader, unsubscribe link and pixel inside the body', async () => {
    const renderer = rendererFor(
      aBroadcast({
        preheader: 'Soon & now',
        htmlBody:
          '<html><body class="b"><p>Hello {{ subscriber.first_name }}, <a title="t" href="https://x.test/a?b=1&amp;c=2">read</a> <a href="mailto:a@b.test">m</a></p></body></html>',
      }),
    );
    const email = await renderer.render({ recipientId: 7, subscriber: subscriber(3) });
    const link = BroadcastRenderer.trackableLinks(renderer['broadcast'], reader)[0]!;
    expect(email.html).toBe(
      '<html><body class="b"><div style="display:none;max-height:0;overflow:hidden;opacity:0;mso-hide:all">Soon &amp; now</div>' +
        `<p>Hello Ann, <a title="t" href="https://mail.example.test/t/c/tok7/${link.identifier}">read</a> <a href="mailto:a@b.test">m</a></p>` +
        '<p style="font-size:12px;color:#666"><a href="https://mail.example.test/u/tok7">Unsubscribe</a></p>' +
        '<img src="https://mail.example.test/t/o/tok7" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px"></body></html>',
    );
    expect(email.text).toBe('Hello Ann, read (https://x.test/a?b=1&c=2) m (mailto:a@b.test)\n\nUnsubscribe: https://mail.example.test/u/tok7');
    expect(email.subject).toBe('Hi Ann');
  });

  it('escapes a subscriber name rendered into an HTML body, and keeps it readable in the text part', async () => {
    const name = '<a href="https://evil.test">x</a><script>alert(1)</script>';
    const renderer = rendererFor(aBroadcast({ body: '<p>Hello {{ subscriber.first_name }}</p>', htmlBody: '<p>Hi {{ subscriber.first_name }}</p>' }));
    const email = await renderer.render({ recipientId: 1, subscriber: subscriber(1, name) });
    expect(email.html).toContain('<p>Hi &lt;a href=&#34;https://evil.test&#34;&gt;x&lt;/a&gt;&lt;script&gt;alert(1)&lt;/script&gt;</p>');
    expect(email.html).not.toContain('<script>');
    expect(email.text.startsWith(`Hello ${name}\n\nUnsubscribe:`)).toBe(true);
  });

  it('fails a recipient whose rendered subject or body is over its cap, saying which', async () => {
    const long = (n: number) => ({ ...subscriber(1), customData: { pad: 'x'.repeat(n) } });
    const subject = rendererFor(aBroadcast({ subject: '{{ subscriber.custom_data.pad }}', htmlBody: '<p>x</p>' }));
    await expect(subject.render({ recipientId: 1, subscriber: long(999) })).rejects.toThrow('the rendered subject is longer than 998 characters');
    await expect(subject.render({ recipientId: 1, subscriber: long(998) })).resolves.toMatchObject({ subject: 'x'.repeat(998) });
    const html = rendererFor(aBroadcast({ htmlBody: '<p>{{ subscriber.custom_data.pad }}</p>' }));
    await expect(html.render({ recipientId: 1, subscriber: long(524_288) })).rejects.toThrow('the rendered html is longer than 524288 characters');
    const text = rendererFor(aBroadcast({ body: '{{ subscriber.custom_data.pad }}' }));
    await expect(text.render({ recipientId: 1, subscriber: long(524_289) })).rejects.toThrow('the rendered text is longer than 524288 characters');
  });

  // Issue 16, finding 1: these bodies cost a minute and 17 s per recipient through the regexes.
  it.each([
    ['<a href=" × 1000', '<p>Hi {{ subscriber.first_name }}</p>' + '<a href="'.repeat(1000)],
    ['500 KB of <a', '<p>Hi {{ subscriber.first_name }}</p>' + '<a'.repeat(250_000)],
  ])('renders %s in under 100 ms of CPU per recipient, as html_body and as body', async (_case, hostile) => {
    for (const broadcast of [aBroadcast({ htmlBody: hostile }), aBroadcast({ body: hostile })]) {
      const renderer = rendererFor(broadcast);
      await renderer.render({ recipientId: 1, subscriber: subscriber(1) }); // parses and caches the template
      const recipients = 5;
      const ms = await cpuMsAsync(async () => {
        for (let id = 2; id < 2 + recipients; id += 1) await renderer.render({ recipientId: id, subscriber: subscriber(id) });
      });
      expect(ms / recipients).toBeLessThan(100);
    }
  });
});
