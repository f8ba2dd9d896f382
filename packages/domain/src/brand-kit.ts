/**
 * A channel's brand kit (docs/brand-kit.md): colours, typography, layout and brand links that
 * emails and pages are drawn with. Every read answers every key: what the channel set, over the
 * defaults. What is stored is a partial kit (only what was set), so a default changed later
 * reaches every channel that never set that key.
 */

export const BRAND_FONTS = ['system', 'helvetica', 'georgia', 'verdana', 'mono', 'inter'] as const;
export type BrandFont = (typeof BRAND_FONTS)[number];

/** Email-safe stacks: each ends in a generic family, so a client without the font still draws text. */
export const FONT_STACKS: Readonly<Record<BrandFont, string>> = {
  system: "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif",
  helvetica: "'Helvetica Neue', Helvetica, Arial, sans-serif",
  georgia: "Georgia, 'Times New Roman', Times, serif",
  verdana: 'Verdana, Geneva, Tahoma, sans-serif',
  mono: "'SFMono-Regular', Menlo, Consolas, 'Liberation Mono', 'Courier New', monospace",
  inter: "Inter, -apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif",
};

export const BRAND_COLOR_KEYS = ['accent', 'link', 'text', 'muted', 'body_background', 'page_background', 'button_text'] as const;
export type BrandColorKey = (typeof BRAND_COLOR_KEYS)[number];

export const SOCIAL_NETWORKS = [
  'bluesky',
  'discord',
  'facebook',
  'github',
  'instagram',
  'linkedin',
  'mastodon',
  'pinterest',
  'reddit',
  'telegram',
  'threads',
  'tiktok',
  'twitch',
  'twitter',
  'whatsapp',
  'x',
  'youtube',
] as const;
export type SocialNetwork = (typeof SOCIAL_NETWORKS)[number];

export const SOCIAL_ICON_STYLES = ['dark', 'light', 'color'] as const;
export type SocialIconStyle = (typeof SOCIAL_ICON_STYLES)[number];

/** Bounds (docs/brand-kit.md, "Rules"). */
export const BRAND_BOUNDS = {
  width: { min: 320, max: 1200 },
  radius: { min: 0, max: 32 },
  logoWidth: { min: 16, max: 600 },
  socialLinks: 10,
  urlLength: 2048,
} as const;

export interface BrandKit {
  colors: Record<BrandColorKey, string>;
  typography: { font: BrandFont; font_stack: string };
  layout: { width: number; radius: number };
  brand: {
    logo_url: string | null;
    logo_width: number;
    website_url: string | null;
    social_links: Array<{ network: SocialNetwork; url: string }>;
    social_icon_style: SocialIconStyle;
  };
}

/** What a channel stores: any subset of the settable keys (font_stack follows font, never set). */
export interface BrandKitPatch {
  colors?: Partial<Record<BrandColorKey, string>>;
  typography?: { font?: BrandFont };
  layout?: Partial<BrandKit['layout']>;
  brand?: Partial<BrandKit['brand']>;
}

export const BRAND_KIT_DEFAULTS: BrandKit = {
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
};

/** The kit a channel answers: its stored keys over the defaults, font_stack from the font. */
export function resolveBrandKit(stored: BrandKitPatch): BrandKit {
  const font = stored.typography?.font ?? BRAND_KIT_DEFAULTS.typography.font;
  return {
    colors: { ...BRAND_KIT_DEFAULTS.colors, ...stored.colors },
    typography: { font, font_stack: FONT_STACKS[font] },
    layout: { ...BRAND_KIT_DEFAULTS.layout, ...stored.layout },
    brand: {
      ...BRAND_KIT_DEFAULTS.brand,
      ...stored.brand,
      social_links: (stored.brand?.social_links ?? BRAND_KIT_DEFAULTS.brand.social_links).map((l) => ({ ...l })),
    },
  };
}

/** A patch over what is stored: groups merge key by key; social_links is replaced whole. */
export function mergeBrandKit(stored: BrandKitPatch, patch: BrandKitPatch): BrandKitPatch {
  const merged: BrandKitPatch = {};
  for (const group of ['colors', 'typography', 'layout', 'brand'] as const) {
    const value = { ...stored[group], ...patch[group] };
    if (Object.keys(value).length > 0) (merged as Record<string, unknown>)[group] = value;
  }
  return merged;
}

const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/** An absolute http(s) URL with a host and no credentials, of bounded length. */
export function isBrandUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > BRAND_BOUNDS.urlLength) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && url.username === '' && url.password === '';
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const inRange = (value: unknown, bounds: { min: number; max: number }): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= bounds.min && value <= bounds.max;

const GROUP_KEYS: Record<keyof BrandKit, readonly string[]> = {
  colors: BRAND_COLOR_KEYS,
  typography: ['font', 'font_stack'],
  layout: ['width', 'radius'],
  brand: ['logo_url', 'logo_width', 'website_url', 'social_links', 'social_icon_style'],
};

/**
 * Checks a kit written by an operator (docs/brand-kit.md, "Rules"): the keys it names, each
 * against its rule; unknown keys are errors too, so a misspelt key is never silently ignored.
 * Answers the patch to merge, or every error by dotted path (and then nothing is to be written).
 */
export function checkBrandKit(input: unknown): { patch: BrandKitPatch; errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  const add = (path: string, message: string) => (errors[path] ??= []).push(message);
  const patch: BrandKitPatch = {};
  if (!isObject(input)) {
    add('kit', 'must be a JSON object');
    return { patch, errors };
  }
  for (const [group, value] of Object.entries(input)) {
    if (!(group in GROUP_KEYS)) {
      add(group, `is not a brand kit key (one of ${Object.keys(GROUP_KEYS).join(', ')})`);
      continue;
    }
    if (!isObject(value)) {
      add(group, 'must be an object');
      continue;
    }
    for (const key of Object.keys(value)) {
      if (!GROUP_KEYS[group as keyof BrandKit].includes(key)) add(`${group}.${key}`, `is not a key of ${group}`);
    }
  }
  const group = (name: keyof BrandKit): Record<string, unknown> => (isObject(input[name]) ? input[name] : {});

  const colors = group('colors');
  for (const key of BRAND_COLOR_KEYS) {
    if (!(key in colors)) continue;
    const value = colors[key];
    if (typeof value === 'string' && HEX_COLOR.test(value)) (patch.colors ??= {})[key] = value.toLowerCase();
    else add(`colors.${key}`, 'must be a hex colour, #rgb or #rrggbb');
  }

  const typography = group('typography');
  if ('font' in typography) {
    const font = typography.font;
    if (typeof font === 'string' && (BRAND_FONTS as readonly string[]).includes(font)) patch.typography = { font: font as BrandFont };
    else add('typography.font', `must be one of ${BRAND_FONTS.join(', ')}`);
  }
  if ('font_stack' in typography) add('typography.font_stack', 'follows the font and cannot be set');

  const layout = group('layout');
  for (const [key, bounds] of [
    ['width', BRAND_BOUNDS.width],
    ['radius', BRAND_BOUNDS.radius],
  ] as const) {
    if (!(key in layout)) continue;
    if (inRange(layout[key], bounds)) (patch.layout ??= {})[key] = layout[key];
    else add(`layout.${key}`, `must be an integer from ${bounds.min} to ${bounds.max}`);
  }

  const brand = group('brand');
  for (const key of ['logo_url', 'website_url'] as const) {
    if (!(key in brand)) continue;
    const value = brand[key];
    if (value === null || isBrandUrl(value)) (patch.brand ??= {})[key] = value;
    else add(`brand.${key}`, `must be an http(s) URL of at most ${BRAND_BOUNDS.urlLength} characters, or null`);
  }
  if ('logo_width' in brand) {
    if (inRange(brand.logo_width, BRAND_BOUNDS.logoWidth)) (patch.brand ??= {}).logo_width = brand.logo_width;
    else add('brand.logo_width', `must be an integer from ${BRAND_BOUNDS.logoWidth.min} to ${BRAND_BOUNDS.logoWidth.max}`);
  }
  if ('social_icon_style' in brand) {
    const style = brand.social_icon_style;
    if (typeof style === 'string' && (SOCIAL_ICON_STYLES as readonly string[]).includes(style)) {
      (patch.brand ??= {}).social_icon_style = style as SocialIconStyle;
    } else add('brand.social_icon_style', `must be one of ${SOCIAL_ICON_STYLES.join(', ')}`);
  }
  if ('social_links' in brand) {
    const links = checkSocialLinks(brand.social_links, add);
    if (links !== null) (patch.brand ??= {}).social_links = links;
  }
  return { patch, errors };
}

function checkSocialLinks(value: unknown, add: (path: string, message: string) => void): BrandKit['brand']['social_links'] | null {
  if (!Array.isArray(value)) {
    add('brand.social_links', 'must be an array of {network, url}');
    return null;
  }
  if (value.length > BRAND_BOUNDS.socialLinks) {
    add('brand.social_links', `must have at most ${BRAND_BOUNDS.socialLinks} links`);
    return null;
  }
  const links: BrandKit['brand']['social_links'] = [];
  let valid = true;
  value.forEach((link, i) => {
    const path = `brand.social_links[${i}]`;
    if (!isObject(link) || Object.keys(link).some((k) => k !== 'network' && k !== 'url')) {
      add(path, 'must be an object with network and url only');
      valid = false;
      return;
    }
    const { network, url } = link;
    const known = typeof network === 'string' && (SOCIAL_NETWORKS as readonly string[]).includes(network);
    if (!known) add(`${path}.network`, `must be one of ${SOCIAL_NETWORKS.join(', ')}`);
    if (!isBrandUrl(url)) add(`${path}.url`, 'must be an http(s) URL');
    if (known && isBrandUrl(url)) links.push({ network: network as SocialNetwork, url });
    else valid = false;
  });
  return valid ? links : null;
}
