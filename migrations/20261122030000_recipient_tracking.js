// @ts-check
/**
 * Tracking and unsubscribe links name one recipient by a random token (122 bits from
 * gen_random_uuid, a CSPRNG): it cannot be forged or enumerated, and needs no server secret.
 * The first open and click of a recipient are kept on the row, for the email.* event data.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    ALTER TABLE broadcast_recipients
      ADD COLUMN token uuid NOT NULL DEFAULT gen_random_uuid(),
      ADD COLUMN opened_at timestamptz,
      ADD COLUMN clicked_at timestamptz`);
  await knex.raw('CREATE UNIQUE INDEX broadcast_recipients_token ON broadcast_recipients (token)');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw(`
    ALTER TABLE broadcast_recipients
      DROP COLUMN token, DROP COLUMN opened_at, DROP COLUMN clicked_at`);
};
