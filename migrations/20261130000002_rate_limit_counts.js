// @ts-check
/**
 * The request rate limit's counts move to rate-limiter-flexible's RateLimiterPostgres
 * (docs/auth.md, Rate limit): its table, made here (the library is told `tableCreated`), with one
 * row per token and one-minute window (`token:<id>:<window start ms>`), `expire` in epoch
 * milliseconds. UNLOGGED as before: a crash may forget the current window's count, which only
 * errs on the side of the caller. The old per-token table goes: its counts last a minute anyway.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    CREATE UNLOGGED TABLE rate_limit_counts (
      key varchar(255) PRIMARY KEY,
      points integer NOT NULL DEFAULT 0,
      expire bigint
    )`);
  await knex.schema.dropTable('rate_limit_windows');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw(`
    CREATE UNLOGGED TABLE rate_limit_windows (
      token_id bigint PRIMARY KEY REFERENCES api_tokens(id) ON DELETE CASCADE,
      window_start timestamptz NOT NULL,
      count integer NOT NULL
    )`);
  await knex.schema.dropTable('rate_limit_counts');
};
