// @ts-check
/**
 * The sequence step runtime (docs/sequences.md, "Runtime"): a random secret per sequence that
 * signs its emails' unsubscribe links (sealed like the other secrets, docs/secrets.md), and an
 * index for the enrolments whose runtime lease lapsed, so a claim finds them without a scan.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw('ALTER TABLE sequences ADD COLUMN unsubscribe_secret text');
  await knex.raw(`CREATE INDEX subscriber_sequences_leased ON subscriber_sequences (lease_until) WHERE status = 'busy'`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP INDEX IF EXISTS subscriber_sequences_leased');
  await knex.raw('ALTER TABLE sequences DROP COLUMN IF EXISTS unsubscribe_secret');
};
