// @ts-check
/**
 * Per-token request counts for the fixed one-minute window of docs/auth.md (RATE_LIMIT_PER_MINUTE).
 * One row per token, reset in place when a new window starts, so the table never grows beyond
 * the number of tokens. UNLOGGED: a crash may forget the current window's count, which only
 * errs on the side of the caller, and it spares the WAL on every request.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    CREATE UNLOGGED TABLE rate_limit_windows (
      token_id bigint PRIMARY KEY REFERENCES api_tokens(id) ON DELETE CASCADE,
      window_start timestamptz NOT NULL,
      count integer NOT NULL
    )`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.dropTableIfExists('rate_limit_windows');
};
