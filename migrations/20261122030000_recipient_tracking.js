// @ts-check
/**
 * Tracking and unsubscribe links carry the recipient id and an HMAC of it under a random
 * secret of the broadcast (domain: tracking-token), so they cannot be forged or enumerated
 * without a random value per recipient (generating one for each of a million rows costs more
 * than inserting the rows). The first open and click of a recipient are kept on its row, for
 * the email.* event data.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw('ALTER TABLE broadcasts ADD COLUMN tracking_secret bytea');
  await knex.raw(`
    ALTER TABLE broadcast_recipients
      ADD COLUMN opened_at timestamptz,
      ADD COLUMN clicked_at timestamptz`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('ALTER TABLE broadcast_recipients DROP COLUMN opened_at, DROP COLUMN clicked_at');
  await knex.raw('ALTER TABLE broadcasts DROP COLUMN tracking_secret');
};
