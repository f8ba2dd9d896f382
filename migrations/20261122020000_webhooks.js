// @ts-check
/**
 * Webhooks: a deleted endpoint is kept (soft delete) so its cancelled deliveries stay as history
 * and the jobs still queued for them find a row that says "cancelled" instead of nothing; the
 * deliveries FK cascades only if the channel goes. The fan-out looks endpoints up by channel on
 * every batch, so live endpoints get a partial index.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.timestamp('deleted_at', { useTz: true });
  });
  await knex.raw('CREATE INDEX webhook_endpoints_live ON webhook_endpoints (channel_id) WHERE deleted_at IS NULL AND active');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP INDEX IF EXISTS webhook_endpoints_live');
  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.dropColumn('deleted_at');
  });
};
