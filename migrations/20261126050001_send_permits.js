// @ts-check
/**
 * The per-second limit's permits (docs/sending-limits.md): per dispatcher, the messages it has
 * open at a limited server and the instants their permits free, shared through the same
 * compare-and-set row as the lanes.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('email_server_send_rates', (t) => {
    t.jsonb('holds').notNullable().defaultTo('{}');
  });
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.alterTable('email_server_send_rates', (t) => {
    t.dropColumn('holds');
  });
};
