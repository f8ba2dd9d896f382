// @ts-check
/**
 * Retention (docs/retention.md) finds old rows by their time: BRIN indexes on the time columns
 * of the tables it prunes. Rows arrive in time order, so a block range summarises well, and a
 * BRIN index costs next to nothing on the insert path (these tables take a row per email).
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw('CREATE INDEX email_events_occurred_brin ON email_events USING brin (occurred_at)');
  await knex.raw('CREATE INDEX events_created_brin ON events USING brin (created_at)');
  await knex.raw('CREATE INDEX webhook_deliveries_created_brin ON webhook_deliveries USING brin (created_at)');
  await knex.raw('CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  for (const index of ['email_events_occurred_brin', 'events_created_brin', 'webhook_deliveries_created_brin', 'idempotency_keys_created']) {
    await knex.raw(`DROP INDEX IF EXISTS ${index}`);
  }
};
