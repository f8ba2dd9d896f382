// @ts-check
/**
 * Sending in each subscriber's time zone (docs/broadcasts-and-sending.md, "Send in each
 * subscriber's time zone"): a flag of the broadcast. Each recipient's instant is kept in the
 * recipient row's next_attempt_at, the column a retry already waits on, so no other column.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw('ALTER TABLE broadcasts ADD COLUMN IF NOT EXISTS send_in_subscriber_timezone boolean NOT NULL DEFAULT false');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('ALTER TABLE broadcasts DROP COLUMN IF EXISTS send_in_subscriber_timezone');
};
