/**
 * docs/archive.md, "Channel slugs": the name in a channel's public URLs, derived from its name:
 * accents dropped, lower-case ASCII letters and digits, runs of anything else one `-`, at most
 * 60 characters; a name with none of those gives `channel`. Uniqueness (`-2`, `-3`…) is the
 * store's business. Migration 20261201000600 applies the same rule to existing channels.
 */
export const MAX_CHANNEL_SLUG = 60;

export function channelSlug(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_CHANNEL_SLUG)
    .replace(/-+$/, '');
  return slug === '' ? 'channel' : slug;
}

/** A slug a URL may name: what channelSlug can produce, with a `-<n>` suffix. */
export const isChannelSlug = (value: string): boolean => value.length <= 80 && /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(value);
