// @ts-check
/**
 * Suppression lists (docs/suppressions.md): one table for the channel lists and the
 * installation-wide list (channel_id NULL). Addresses are stored normalised, as subscribers'
 * are, so the sending checks compare them with a plain equality on the (email, channel_id) index.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    CREATE TABLE suppressions (
      id bigserial PRIMARY KEY,
      channel_id bigint REFERENCES channels (id) ON DELETE CASCADE,
      email text NOT NULL,
      reason text NOT NULL CHECK (reason IN ('manual', 'bounce', 'complaint')),
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT suppressions_unique UNIQUE NULLS NOT DISTINCT (email, channel_id)
    )`);
  // The list pages: one channel's (or the global) entries, newest first.
  await knex.raw('CREATE INDEX suppressions_list ON suppressions (channel_id, created_at DESC, id DESC)');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP TABLE IF EXISTS suppressions');
};
