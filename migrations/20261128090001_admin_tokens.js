// @ts-check
/**
 * Admin (cross-channel) tokens (docs/auth.md, Admin tokens): a token belongs to one channel, or
 * is an installation admin's that names the channel per request and alone may change what every
 * channel shares. A label tells tokens apart in listings. Existing tokens are channel tokens.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`ALTER TABLE api_tokens
    ALTER COLUMN channel_id DROP NOT NULL,
    ADD COLUMN type text NOT NULL DEFAULT 'channel',
    ADD COLUMN label text,
    ADD CONSTRAINT api_tokens_type CHECK (
      (type = 'channel' AND channel_id IS NOT NULL) OR (type = 'admin_cross_channel' AND channel_id IS NULL)
    )`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw(`DELETE FROM api_tokens WHERE type <> 'channel'`);
  await knex.raw(`ALTER TABLE api_tokens
    DROP CONSTRAINT api_tokens_type,
    DROP COLUMN label,
    DROP COLUMN type,
    ALTER COLUMN channel_id SET NOT NULL`);
};
