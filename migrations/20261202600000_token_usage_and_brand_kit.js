// @ts-check
/**
 * Discovery and the brand kit (docs/discovery.md, docs/brand-kit.md):
 * - `api_tokens.token_suffix`: the token's last four characters, kept from creation on so whoami
 *   can show `redacted_value` (first four + eight `•` + last four). Tokens made before this have
 *   none and answer `•` in its place; nothing else of a token is kept beyond its hash and prefix.
 * - `api_tokens.last_used_at`: written at most once a minute per token (docs/discovery.md).
 * - `channels.design`: the brand kit's keys an operator set (a partial kit); every read fills the
 *   rest with the defaults, so a default changed later reaches every channel that never set it.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`ALTER TABLE api_tokens
    ADD COLUMN token_suffix text CHECK (char_length(token_suffix) = 4),
    ADD COLUMN last_used_at timestamptz`);
  await knex.raw(`ALTER TABLE channels
    ADD COLUMN design jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(design) = 'object')`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw(`ALTER TABLE channels DROP COLUMN design`);
  await knex.raw(`ALTER TABLE api_tokens DROP COLUMN last_used_at, DROP COLUMN token_suffix`);
};
