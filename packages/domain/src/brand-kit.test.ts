import { BRAND_KIT_DEFAULTS, checkBrandKit, FONT_STACKS, isBrandUrl, mergeBrandKit, resolveBrandKit } from './brand-kit';

describe('brand kit', () => {
  it('answers every key with the defaults of the contract when nothing is set', () => {
    expect(resolveBrandKit({})).toEqual({
      colors: {
        accent: '#2563eb',
        link: '#2563eb',
        text: '#18181b',
        muted: '#71717a',
        body_background: '#ffffff',
        page_background: '#f4f4f5',
        button_text: '#ffffff',
      },
      typography: { font: 'system', font_stack: FONT_STACKS.system },
      layout: { width: 600, radius: 6 },
      brand: { logo_url: null, logo_width: 150, website_url: null, social_links: [], social_icon_style: 'dark' },
    });
  });

  it('lays stored keys over the defaults, the font stack following the font', () => {
    const kit = resolveBrandKit({ colors: { accent: '#ff0000' }, typography: { font: 'georgia' }, brand: { logo_width: 200 } });
    expect(kit.colors).toEqual({ ...BRAND_KIT_DEFAULTS.colors, accent: '#ff0000' });
    expect(kit.typography).toEqual({ font: 'georgia', font_stack: FONT_STACKS.georgia });
    expect(kit.brand.logo_width).toBe(200);
    expect(kit.brand.social_icon_style).toBe('dark');
  });

  it('accepts a full valid kit and normalises colours to lower case', () => {
    const { patch, errors } = checkBrandKit({
      colors: { accent: '#ABC', text: '#112233' },
      typography: { font: 'inter' },
      layout: { width: 320, radius: 32 },
      brand: {
        logo_url: 'https://cdn.example.com/logo.png',
        logo_width: 600,
        website_url: null,
        social_links: [{ network: 'x', url: 'https://x.com/acme' }],
        social_icon_style: 'color',
      },
    });
    expect(errors).toEqual({});
    expect(patch).toEqual({
      colors: { accent: '#abc', text: '#112233' },
      typography: { font: 'inter' },
      layout: { width: 320, radius: 32 },
      brand: {
        logo_url: 'https://cdn.example.com/logo.png',
        logo_width: 600,
        website_url: null,
        social_links: [{ network: 'x', url: 'https://x.com/acme' }],
        social_icon_style: 'color',
      },
    });
  });

  it.each([
    [{ colors: { accent: 'blue' } }, 'colors.accent'],
    [{ colors: { accent: '#12345' } }, 'colors.accent'],
    [{ colors: { accent: '#gggggg' } }, 'colors.accent'],
    [{ colors: { shadow: '#000' } }, 'colors.shadow'],
    [{ typography: { font: 'comic-sans' } }, 'typography.font'],
    [{ typography: { font_stack: 'Arial' } }, 'typography.font_stack'],
    [{ layout: { width: 319 } }, 'layout.width'],
    [{ layout: { width: 1201 } }, 'layout.width'],
    [{ layout: { width: 600.5 } }, 'layout.width'],
    [{ layout: { radius: -1 } }, 'layout.radius'],
    [{ layout: { radius: 33 } }, 'layout.radius'],
    [{ layout: { radius: '6' } }, 'layout.radius'],
    [{ brand: { logo_width: 15 } }, 'brand.logo_width'],
    [{ brand: { logo_width: 601 } }, 'brand.logo_width'],
    [{ brand: { logo_url: 'javascript:alert(1)' } }, 'brand.logo_url'],
    [{ brand: { logo_url: 'ftp://example.com/logo.png' } }, 'brand.logo_url'],
    [{ brand: { website_url: '/relative' } }, 'brand.website_url'],
    [{ brand: { website_url: 'https://user:pass@example.com' } }, 'brand.website_url'],
    [{ brand: { social_icon_style: 'neon' } }, 'brand.social_icon_style'],
    [{ brand: { social_links: 'x' } }, 'brand.social_links'],
    [{ brand: { social_links: Array.from({ length: 11 }, () => ({ network: 'x', url: 'https://x.com/a' })) } }, 'brand.social_links'],
    [{ brand: { social_links: [{ network: 'myspace', url: 'https://myspace.com/a' }] } }, 'brand.social_links[0].network'],
    [{ brand: { social_links: [{ network: 'x', url: 'data:text/html,hi' }] } }, 'brand.social_links[0].url'],
    [{ brand: { social_links: [{ network: 'x', url: 'https://x.com/a', icon: 'y' }] } }, 'brand.social_links[0]'],
    [{ theme: {} }, 'theme'],
    [{ colors: '#fff' }, 'colors'],
  ])('refuses %j at %s, and gives nothing to write', (input, path) => {
    const { errors } = checkBrandKit(input);
    expect(Object.keys(errors)).toContain(path);
  });

  it.each([[null], [[]], ['kit'], [3]])('refuses a kit that is not an object: %j', (input) => {
    expect(checkBrandKit(input).errors).toEqual({ kit: ['must be a JSON object'] });
  });

  it('allows ten social links exactly', () => {
    const links = Array.from({ length: 10 }, (_, i) => ({ network: 'github', url: `https://github.com/u${i}` }));
    expect(checkBrandKit({ brand: { social_links: links } }).errors).toEqual({});
  });

  it('merges key by key within a group, replacing social_links whole', () => {
    const stored = { colors: { accent: '#000' }, brand: { logo_width: 100, social_links: [{ network: 'x' as const, url: 'https://x.com/a' }] } };
    const merged = mergeBrandKit(stored, { colors: { text: '#111' }, brand: { social_links: [] } });
    expect(merged).toEqual({ colors: { accent: '#000', text: '#111' }, brand: { logo_width: 100, social_links: [] } });
    expect(mergeBrandKit({}, {})).toEqual({});
  });

  it.each([
    ['https://example.com', true],
    ['http://example.com/a?b=c', true],
    ['mailto:a@example.com', false],
    ['https://', false],
    [`https://example.com/${'a'.repeat(2048)}`, false],
  ])('isBrandUrl(%s) is %s', (url, expected) => {
    expect(isBrandUrl(url)).toBe(expected);
  });
});
