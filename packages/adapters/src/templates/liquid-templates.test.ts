import { LiquidTemplates, RENDER_LIMIT_MS } from './liquid-templates';

describe('LiquidTemplates', () => {
  const templates = new LiquidTemplates();
  const one = (source: string, scope: Record<string, unknown>, context: 'html' | 'text') =>
    templates.render(1, [{ source, context }], scope).then(([value]) => value);
  const scope = { subscriber: { first_name: 'Ada <b>', tags: ['a', 'b'], custom_data: { plan: 'pro' } }, broadcast: { name: 'N' } };

  it('renders the contract variables', async () => {
    await expect(one('Hi {{ subscriber.first_name }} ({{ subscriber.tags | join: "," }}, {{ subscriber.custom_data.plan }})', scope, 'text')).resolves.toBe(
      'Hi Ada <b> (a,b, pro)',
    );
  });

  it('escapes values in an HTML context, not in text', async () => {
    await expect(one('<p>{{ subscriber.first_name }}</p>', scope, 'html')).resolves.toBe('<p>Ada &lt;b&gt;</p>');
    await expect(one('{{ subscriber.first_name }}', scope, 'text')).resolves.toBe('Ada <b>');
  });

  it('reports invalid Liquid with the parser message, and accepts valid Liquid', () => {
    expect(templates.check('Hello {{ subscriber.first_name }}')).toBeNull();
    expect(templates.check('Hello {% if %}')).toMatch(/.+/);
    expect(templates.check('Hello {{ subscriber.first_name')).toMatch(/not closed/);
    expect(templates.check('{{ x | no_such_filter }}')).toMatch(/no_such_filter/);
  });

  it('reaches no file system', async () => {
    await expect(one('{% include "/etc/passwd" %}', {}, 'text')).rejects.toThrow();
    await expect(one('{% render "../../package.json" %}', {}, 'text')).rejects.toThrow();
  });

  it('exposes only own properties of the scope', async () => {
    await expect(one('[{{ subscriber.constructor }}][{{ subscriber.__proto__ }}]', scope, 'text')).resolves.toBe('[][]');
  });

  it('stops a runaway loop', async () => {
    await expect(one('{% for i in (1..100000000) %}{{ i }}{% endfor %}', {}, 'text')).rejects.toThrow(/limit/i);
  }, 10_000);

  // Issue 16, finding 2: a 165-byte body doubling a capture made 7 MB emails; 22 doublings took
  // 1.6 GB and 17 s per recipient (docs/security.md "Templates").
  it('refuses a capture that doubles past the body cap, quickly, with a clear error', async () => {
    const doubling = '{% capture x %}0123456789abcdef{% endcapture %}' + '{% capture x %}{{ x }}{{ x }}{% endcapture %}'.repeat(22) + '{{ x }}';
    for (const context of ['text', 'html'] as const) {
      let error: unknown;
      const started = Date.now();
      await one(doubling, {}, context).catch((e: unknown) => (error = e));
      expect(String(error)).toMatch(/capture "x" is longer than 524288 characters/);
      expect(Date.now() - started).toBeLessThan(2_000);
    }
    // Below the cap, a capture works as before.
    await expect(one('{% capture x %}ab{% endcapture %}{{ x }}{{ x }}', {}, 'text')).resolves.toBe('abab');
  });

  it("renders an email's parts in order, each in its own context", async () => {
    const parts = [
      { source: '{{ subscriber.first_name }}', context: 'text' },
      { source: '<b>{{ subscriber.first_name }}</b>', context: 'html' },
    ] as const;
    await expect(templates.render(1, parts, scope)).resolves.toEqual(['Ada <b>', '<b>Ada &lt;b&gt;</b>']);
  });

  it('bounds the time one render may take', async () => {
    const loop = '{% for i in (1..3000) %}{% for j in (1..3000) %}{{ i | plus: j }}{% endfor %}{% endfor %}';
    let error: unknown;
    const started = Date.now();
    await one(loop, {}, 'text').catch((e: unknown) => (error = e));
    expect(String(error)).toMatch(/template render limit exceeded/);
    expect(Date.now() - started).toBeLessThan(RENDER_LIMIT_MS * 10);
  });
});
