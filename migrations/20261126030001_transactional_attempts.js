// @ts-check
/**
 * Transactional retries (docs/transactionals.md): `attempts` counts the sends claimed so far; the
 * job of attempt N claims the row only while it holds N - 1, so a duplicate job sends nothing.
 * A row claimed before this column existed (its Message-ID set) counts as one attempt made.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw('ALTER TABLE transactionals ADD COLUMN attempts integer NOT NULL DEFAULT 0');
  await knex.raw('UPDATE transactionals SET attempts = 1 WHERE message_id IS NOT NULL');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('ALTER TABLE transactionals DROP COLUMN attempts');
};
