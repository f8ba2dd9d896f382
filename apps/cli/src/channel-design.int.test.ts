import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BRAND_KIT_DEFAULTS, FONT_STACKS } from '@mailcast/domain';
import request from 'supertest';
import { expectResponseMatchesDocument } from '../../api/src/openapi/test-support/match-document';
import { startApi, type ApiHarness } from '../../api/src/test-support/harness';
import { runAdmin } from './test-support/run-admin';

/** `channel design` and GET /api/v1/channel/design (docs/brand-kit.md) against a real database. */
describe('brand kit: admin CLI channel design and the API', () => {
  let api: ApiHarness;
  let dir: string;
  beforeAll(async () => {
    api = await startApi();
    dir = await mkdtemp(join(tmpdir(), 'mailcast-design-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await api.close();
  });

  const admin = (...argv: string[]) => runAdmin(api.database.url, [...argv, '--json']);
  const kitFile = async (name: string, content: unknown) => {
    const path = join(dir, name);
    await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const design = (token: string) => request(api.app).get('/api/v1/channel/design').set('Authorization', `Bearer ${token}`);
  const stored = async (channelId: number) => (await api.database.db('channels').where({ id: channelId }).first()).design;

  it('answers every key with the defaults for a channel that set none, with templates_read', async () => {
    const channel = await api.fixtures.aChannel();
    const res = await design(await api.fixtures.aToken(channel.id, ['templates_read']));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(BRAND_KIT_DEFAULTS);
    expect(res.body.typography.font_stack).toBe(FONT_STACKS.system);
    expectResponseMatchesDocument(res);

    const without = await design(await api.fixtures.aToken(channel.id, ['templates_write', 'subscribers_read']));
    expect([without.status, without.body]).toEqual([401, { error: 'Unauthorized' }]);
  });

  it('merges a kit over the current one; the API answers it over the defaults', async () => {
    const channel = await api.fixtures.aChannel();
    const id = String(channel.id);
    const first = await admin(
      'channel',
      'design',
      '--channel',
      id,
      '--file',
      await kitFile('first.json', {
        colors: { accent: '#FF6600' },
        typography: { font: 'georgia' },
        brand: { logo_url: 'https://cdn.example.com/logo.png', social_links: [{ network: 'x', url: 'https://x.com/acme' }] },
      }),
    );
    expect(first.code).toBe(0);
    expect(first.json.colors.accent).toBe('#ff6600');

    const second = await admin(
      'channel',
      'design',
      '--channel',
      id,
      '--file',
      await kitFile('second.json', { colors: { text: '#000' }, layout: { width: 720 }, brand: { logo_width: 200 } }),
    );
    expect(second.code).toBe(0);

    const res = await design(await api.fixtures.aToken(channel.id, ['templates_read']));
    expect(res.body).toEqual({
      colors: { ...BRAND_KIT_DEFAULTS.colors, accent: '#ff6600', text: '#000' },
      typography: { font: 'georgia', font_stack: FONT_STACKS.georgia },
      layout: { width: 720, radius: 6 },
      brand: {
        ...BRAND_KIT_DEFAULTS.brand,
        logo_url: 'https://cdn.example.com/logo.png',
        logo_width: 200,
        social_links: [{ network: 'x', url: 'https://x.com/acme' }],
      },
    });
    expect(second.json).toEqual(res.body);
    expectResponseMatchesDocument(res);
    // Only what was set is stored: a default changed later still reaches the rest.
    expect(await stored(channel.id)).toEqual({
      colors: { accent: '#ff6600', text: '#000' },
      typography: { font: 'georgia' },
      layout: { width: 720 },
      brand: { logo_url: 'https://cdn.example.com/logo.png', logo_width: 200, social_links: [{ network: 'x', url: 'https://x.com/acme' }] },
    });
  });

  it('refuses a bad kit with every error named, and writes nothing', async () => {
    const channel = await api.fixtures.aChannel();
    const id = String(channel.id);
    expect((await admin('channel', 'design', '--channel', id, '--file', await kitFile('ok.json', { colors: { accent: '#111111' } }))).code).toBe(0);

    const bad = await admin(
      'channel',
      'design',
      '--channel',
      id,
      '--file',
      await kitFile('bad.json', {
        colors: { accent: '#222222', link: 'red' },
        typography: { font: 'papyrus' },
        layout: { width: 2000, radius: 40 },
        brand: {
          logo_url: 'javascript:alert(1)',
          logo_width: 5,
          social_links: [{ network: 'myspace', url: 'https://myspace.com/a' }],
        },
      }),
    );
    expect(bad.code).toBe(1);
    for (const key of [
      'colors.link',
      'typography.font',
      'layout.width',
      'layout.radius',
      'brand.logo_url',
      'brand.logo_width',
      'brand.social_links[0].network',
    ]) {
      expect(bad.json.error).toContain(key);
    }
    // The valid accent in the same file was not written either.
    expect(await stored(channel.id)).toEqual({ colors: { accent: '#111111' } });

    const tooMany = Array.from({ length: 11 }, (_, i) => ({ network: 'github', url: `https://github.com/u${i}` }));
    const many = await admin('channel', 'design', '--channel', id, '--file', await kitFile('many.json', { brand: { social_links: tooMany } }));
    expect(many.code).toBe(1);
    expect(many.json.error).toMatch(/social_links must have at most 10 links/);

    const notJson = await admin('channel', 'design', '--channel', id, '--file', await kitFile('broken.json', '{"colors": '));
    expect(notJson.code).toBe(1);
    expect(notJson.json.error).toMatch(/is not valid JSON/);

    expect((await admin('channel', 'design', '--channel', id, '--file', join(dir, 'missing.json'))).json.error).toMatch(/File not found/);
    expect((await admin('channel', 'design', '--channel', '999999', '--file', await kitFile('x.json', {}))).json).toEqual({ error: 'Channel not found' });
    expect((await admin('channel', 'design', '--channel', id)).code).toBe(2);
    expect(await stored(channel.id)).toEqual({ colors: { accent: '#111111' } });
  });
});
