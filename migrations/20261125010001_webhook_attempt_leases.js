// @ts-check
/**
 * A first attempt a dispatcher holds in memory carries a short lease, in database time, renewed
 * while held: when its dispatcher dies, another re-queues it as soon as the lease lapses
 * (docs/sending-reliability.md). Null for attempts carried by jobs.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.timestamp('lease_expires_at', { useTz: true });
  });
  await knex.raw(
    `CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (lease_expires_at)
      WHERE status = 'pending' AND lease_expires_at IS NOT NULL`,
  );
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP INDEX IF EXISTS webhook_deliveries_leased');
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropColumn('lease_expires_at');
  });
};
