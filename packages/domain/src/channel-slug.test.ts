import { channelSlug, isChannelSlug } from './channel-slug';

describe('channelSlug (docs/archive.md, Channel slugs)', () => {
  test.each([
    ['Weekly News', 'weekly-news'],
    ['  Crème brûlée & Co.  ', 'creme-brulee-co'],
    ['ÄÖÜ 2026!', 'aou-2026'],
    ['---', 'channel'],
    ['日本語', 'channel'],
    ['a'.repeat(70), 'a'.repeat(60)],
    [`${'a'.repeat(59)} b`, 'a'.repeat(59)],
  ])('%j → %j', (name, slug) => {
    expect(channelSlug(name)).toBe(slug);
    expect(isChannelSlug(slug)).toBe(true);
  });

  test.each(['', 'Upper', 'a--b', '-a', 'a-', 'feed.atom', 'a/b'])('%j is not a slug', (value) => {
    expect(isChannelSlug(value)).toBe(false);
  });
});
