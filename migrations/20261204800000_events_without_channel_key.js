// @ts-check
/**
 * The outbox (`events`) loses its foreign key to channels: a referential check per event row,
 * which the segment sync pays a million times when it enrols a million members, each with its
 * `sequence.subscriber_added` (docs/sequences.md, "init_segment_id"; 7 to 8% of the sync's
 * statement at 200,000 members by EXPLAIN ANALYZE, bench/NOTES.md). It guards nothing the
 * product can break: a channel has no delete operation, and every event is written with the
 * channel of a row the same statement or transaction reads under that channel (the subscriber,
 * the sequence, the broadcast), as the email events' key went before it
 * (20261122050000_sending_write_path.js; docs/webhooks.md, "How events become POSTs").
 * webhook_deliveries keeps its key to events, so a delivery never outlives its event.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw('ALTER TABLE events DROP CONSTRAINT IF EXISTS events_channel_id_foreign');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('ALTER TABLE events ADD CONSTRAINT events_channel_id_foreign FOREIGN KEY (channel_id) REFERENCES channels(id) ON DELETE CASCADE');
};
