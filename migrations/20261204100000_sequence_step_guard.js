// @ts-check
/**
 * The reputation guard for sequence email steps (docs/reputation-guard.md, "Sequence email
 * steps"):
 * - `sequence_steps.paused_at`: set while the step is paused (by the guard, or by a person);
 *   enrolments that reach it wait, parked, until it is resumed.
 * - `sequence_steps.pause_reason`: why the guard paused it (`hard_bounce_rate`,
 *   `complaint_rate`); null for a person's pause, cleared by resume.
 * - `sequence_steps.guard_baseline`: the step's figures when it was last resumed; the guard
 *   judges only what came after them. The figures themselves are the step's counters in
 *   `sequence_step_statistics` (`processed`, `bounced`), never a recount.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`ALTER TABLE sequence_steps ADD COLUMN paused_at timestamptz, ADD COLUMN pause_reason text, ADD COLUMN guard_baseline jsonb`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw(`ALTER TABLE sequence_steps DROP COLUMN IF EXISTS paused_at, DROP COLUMN IF EXISTS pause_reason, DROP COLUMN IF EXISTS guard_baseline`);
};
