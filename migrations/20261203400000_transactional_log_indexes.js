// @ts-check
/**
 * The transactional log (docs/transactionals.md, "The log"): a channel's page by status, newest
 * first, without reading the other statuses; the partial, case-insensitive recipient filter
 * through trigrams (as the subscriber list's email filter); and a transactional's events in the
 * outbox by the `transactional_id` of their data. The events index is partial: broadcast events,
 * most of the table, are not in it.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw('CREATE INDEX transactionals_channel_status ON transactionals (channel_id, status, created_at DESC, id DESC)');
  await knex.raw('CREATE INDEX transactionals_to_trgm ON transactionals USING gin (lower(to_email) gin_trgm_ops)');
  await knex.raw(`CREATE INDEX events_transactional ON events ((data->>'transactional_id'), id) WHERE (data->>'transactional_id') IS NOT NULL`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP INDEX IF EXISTS events_transactional');
  await knex.raw('DROP INDEX IF EXISTS transactionals_to_trgm');
  await knex.raw('DROP INDEX IF EXISTS transactionals_channel_status');
};
