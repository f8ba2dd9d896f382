// @ts-check
/**
 * A subscriber's history (docs/subscribers.md, "History"): every email sent to one address,
 * read by subscriber. Broadcasts need no index of their own: the channel's broadcasts are
 * walked and each probes the unique (broadcast_id, subscriber_id) key, so the sending write path
 * (a million recipient rows in one statement) carries no index by subscriber. Transactionals
 * and sequence emails are read by subscriber through these two; the email_events one is
 * partial, so the broadcasts' events (nearly all rows) neither pay for it nor fill it.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw('CREATE INDEX IF NOT EXISTS transactionals_subscriber ON transactionals (subscriber_id, created_at DESC, id DESC)');
  await knex.raw('CREATE INDEX IF NOT EXISTS email_events_sequence_subscriber ON email_events (subscriber_id, occurred_at DESC) WHERE sequence_id IS NOT NULL');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP INDEX IF EXISTS email_events_sequence_subscriber');
  await knex.raw('DROP INDEX IF EXISTS transactionals_subscriber');
};
