// @ts-check
const LIMIT_COLUMNS = ['max_per_second', 'max_per_minute', 'max_per_hour', 'max_per_day'];

/**
 * Sending limits per email server, held for every dispatcher together (docs/sending-limits.md).
 *
 * email_servers gains max_per_second, max_per_minute, max_per_hour and max_per_day (null: no
 * limit). The email servers API adds the same columns, so each is added only when absent.
 *
 * email_server_send_rates holds each limited server's shared state: the two GCRA lanes' next
 * instants and the adaptive cap a throttling answer set, in milliseconds of the database's clock.
 * Dispatchers change a row with a conditional UPDATE on `version` (compare-and-set), so two of
 * them never hand out the same slot.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  for (const column of LIMIT_COLUMNS) {
    if (!(await knex.schema.hasColumn('email_servers', column))) {
      await knex.schema.alterTable('email_servers', (t) => {
        t.integer(column);
      });
    }
  }
  await knex.schema.createTable('email_server_send_rates', (t) => {
    t.bigInteger('email_server_id').primary().references('email_servers.id').onDelete('CASCADE');
    t.bigInteger('version').notNullable().defaultTo(0);
    t.double('tat').notNullable().defaultTo(0);
    t.double('long_tat').notNullable().defaultTo(0);
    t.double('throttle_rate');
    t.double('throttle_ceiling');
    t.double('throttled_at');
  });
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.dropTableIfExists('email_server_send_rates');
  for (const column of LIMIT_COLUMNS) {
    if (await knex.schema.hasColumn('email_servers', column)) {
      await knex.schema.alterTable('email_servers', (t) => {
        t.dropColumn(column);
      });
    }
  }
};
