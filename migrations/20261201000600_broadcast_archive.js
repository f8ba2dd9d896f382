// @ts-check
/**
 * The public archive (docs/archive.md): a channel's `slug` names it in public URLs
 * (`/archive/:slug`), and a broadcast's `archive` flag publishes it there once sent.
 *
 * Slugs of existing channels are derived from their names here, with the rule the domain's
 * `channelSlug` applies to new ones (kept in step by packages/adapters/src/pg/channel-slug.test.ts,
 * which loads this file); a name that several channels share gets `-2`, `-3`… in id order.
 *
 * @param {import('knex').Knex} knex
 */

const MAX_SLUG = 60;

/** @param {string} name */
function channelSlug(name) {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG)
    .replace(/-+$/, '');
  return slug === '' ? 'channel' : slug;
}
exports.channelSlug = channelSlug;

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.raw('ALTER TABLE channels ADD COLUMN slug text');
  const channels = await knex('channels').select('id', 'name').orderBy('id');
  const taken = new Set();
  for (const channel of channels) {
    const base = channelSlug(channel.name);
    let slug = base;
    for (let n = 2; taken.has(slug); n += 1) slug = `${base}-${n}`;
    taken.add(slug);
    await knex('channels').where({ id: channel.id }).update({ slug });
  }
  await knex.raw('ALTER TABLE channels ALTER COLUMN slug SET NOT NULL');
  await knex.raw(`ALTER TABLE channels ADD CONSTRAINT channels_slug_format CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND char_length(slug) <= 80)`);
  await knex.raw('CREATE UNIQUE INDEX channels_slug ON channels (slug)');

  await knex.raw('ALTER TABLE broadcasts ADD COLUMN archive boolean NOT NULL DEFAULT false');
  // The archive list and feed: a channel's archived broadcasts, newest sent first.
  await knex.raw('CREATE INDEX broadcasts_archive ON broadcasts (channel_id, sent_at DESC, id DESC) WHERE archive');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP INDEX IF EXISTS broadcasts_archive');
  await knex.raw('ALTER TABLE broadcasts DROP COLUMN IF EXISTS archive');
  await knex.raw('DROP INDEX IF EXISTS channels_slug');
  await knex.raw('ALTER TABLE channels DROP COLUMN IF EXISTS slug');
};
