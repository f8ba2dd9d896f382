// @ts-check
/**
 * The hourly cap on confirmation emails (docs/security.md: Confirmation emails): a request row
 * records whether its email was queued, so the cap counts queued emails in SQL and every api
 * process shares it. Rows written before keep false and are not counted.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw('ALTER TABLE subscriber_confirmations ADD COLUMN email_queued boolean NOT NULL DEFAULT false');
  await knex.raw('CREATE INDEX subscriber_confirmations_queued ON subscriber_confirmations (subscriber_id, created_at) WHERE email_queued');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP INDEX IF EXISTS subscriber_confirmations_queued');
  await knex.raw('ALTER TABLE subscriber_confirmations DROP COLUMN IF EXISTS email_queued');
};
