// @ts-check
/**
 * A transactional's unsubscribe link (docs/transactionals.md): with include_unsubscribe_link the
 * row keeps a random secret, sealed like the other secrets (docs/secrets.md), that signs the
 * link's token, so every attempt of that email renders the same URL.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw('ALTER TABLE transactionals ADD COLUMN unsubscribe_secret text');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('ALTER TABLE transactionals DROP COLUMN unsubscribe_secret');
};
