// @ts-check
/**
 * The export API (docs/export.md) pages each collection of a channel in id order with LIMIT and
 * OFFSET. These indexes let the largest collections (subscribers, email events) and the
 * suppression lists be read that way without sorting the channel's rows on every page.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw('CREATE INDEX IF NOT EXISTS subscribers_channel_id ON subscribers (channel_id, id)');
  await knex.raw('CREATE INDEX IF NOT EXISTS email_events_channel_id ON email_events (channel_id, id)');
  await knex.raw('CREATE INDEX IF NOT EXISTS suppressions_channel_id ON suppressions (channel_id, id)');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP INDEX IF EXISTS suppressions_channel_id');
  await knex.raw('DROP INDEX IF EXISTS email_events_channel_id');
  await knex.raw('DROP INDEX IF EXISTS subscribers_channel_id');
};
