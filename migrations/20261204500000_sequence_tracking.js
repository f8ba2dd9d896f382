// @ts-check
/**
 * Open and click tracking of sequence emails (docs/sequences.md, "Tracking"). A sequence email
 * is one (enrolment, step) pair, whose row in sequence_step_runs is written when its outcome
 * commits; that row keeps the first and last open and click, as a broadcast recipient's row does
 * (one UPDATE decides whether a load or click is recorded, so concurrent ones cannot both count).
 * A step's trackable links are stored once per step and link, so a click redirects only to a
 * stored URL. Nullable columns: no table rewrite, and nothing more written per step run.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    ALTER TABLE sequence_step_runs
      ADD COLUMN opened_at timestamptz,
      ADD COLUMN last_opened_at timestamptz,
      ADD COLUMN clicked_at timestamptz,
      ADD COLUMN last_clicked_at timestamptz,
      ADD COLUMN last_clicked_link_id bigint`);
  await knex.raw(`
    CREATE TABLE sequence_step_links (
      id bigserial PRIMARY KEY,
      step_id bigint NOT NULL REFERENCES sequence_steps (id) ON DELETE CASCADE,
      identifier text NOT NULL,
      url text NOT NULL,
      UNIQUE (step_id, identifier)
    )`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP TABLE IF EXISTS sequence_step_links');
  await knex.raw(`ALTER TABLE sequence_step_runs DROP COLUMN opened_at, DROP COLUMN last_opened_at, DROP COLUMN clicked_at,
    DROP COLUMN last_clicked_at, DROP COLUMN last_clicked_link_id`);
};
