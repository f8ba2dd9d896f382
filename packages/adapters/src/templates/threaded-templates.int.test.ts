import { HOSTILE_LIQUID } from '@mailcast/testkit';
import { LiquidTemplates } from './liquid-templates';
import { ThreadedTemplates } from './threaded-templates';

/**
 * Channel Liquid on the built templates-thread.js (docs/templates.md "Rendering"): rendered as
 * in-process, a render past the time limit stopped with its thread, and nothing after close.
 */
describe('ThreadedTemplates', () => {
  const scope = { subscriber: { first_name: 'Ada <b>', tags: ['a', 'b'] }, data: { at: new Date('2026-06-01T00:00:00Z') } };
  const parts = [
    { source: 'Hi {{ subscriber.first_name }}', context: 'text' },
    { source: '<p>{{ subscriber.first_name }} {{ subscriber.tags | join: "," }}</p>', context: 'html' },
    { source: '{{ subscriber.first_name | no_such_filter }}', context: 'text' },
  ] as const;
  let templates: ThreadedTemplates;
  afterEach(async () => templates.close());

  it('renders the parts of an email as LiquidTemplates does, and fails with its reason', async () => {
    templates = new ThreadedTemplates({ timeLimitMs: 2_000 });
    const local = new LiquidTemplates();
    const good = [parts[0], parts[1]] as const;
    expect(await templates.render(1, good, scope)).toEqual(await local.render(1, good, scope));
    expect(await templates.render(1, good, scope)).toEqual(['Hi Ada <b>', '<p>Ada &lt;b&gt; a,b</p>']);
    const failed = await templates.render(1, parts, scope).catch((error: Error) => error.message);
    expect(failed).toBe(await local.render(1, parts, scope).catch((error: Error) => error.message));
    expect(templates.check('{{ x')).toBe(local.check('{{ x'));
  });

  it('stops a render past the time limit, and renders the next on a fresh thread', async () => {
    templates = new ThreadedTemplates({ timeLimitMs: 300 });
    const started = Date.now();
    await expect(templates.render(1, [{ source: HOSTILE_LIQUID, context: 'text' }], {})).rejects.toThrow('the render took longer than 300 ms');
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect(templates.render(2, [{ source: 'ok {{ n }}', context: 'text' }], { n: 1 })).resolves.toEqual(['ok 1']);
  });

  it('refuses a scope that cannot cross to a thread, and every render once closed', async () => {
    templates = new ThreadedTemplates({ timeLimitMs: 2_000 });
    await expect(templates.render(1, [{ source: '{{ f }}', context: 'text' }], { f: () => 1 })).rejects.toThrow(/could not be cloned/);
    await templates.close();
    await expect(templates.render(1, [{ source: 'x', context: 'text' }], {})).rejects.toThrow('the rendering threads are closed');
  });
});
