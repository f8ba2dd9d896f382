// @ts-check
/**
 * The stage a paused broadcast was paused in (scheduled, queueing or sending), so resume puts it
 * back there and the sending pipeline continues where it stopped. Null unless paused.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('broadcasts', (t) => {
    t.text('paused_from');
  });
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.alterTable('broadcasts', (t) => {
    t.dropColumn('paused_from');
  });
};
