// @ts-check
/**
 * Due enrolments in (due time, id) order (docs/sequences.md, "Runtime"): a runtime turn claims
 * past the last one it took, so each claim starts where the last ended instead of walking again
 * over the index entries of the enrolments the turn has already moved.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`CREATE INDEX subscriber_sequences_due_order ON subscriber_sequences (next_trigger_at, id) WHERE status = 'active'`);
  await knex.raw('DROP INDEX IF EXISTS subscriber_sequences_due');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw(`CREATE INDEX subscriber_sequences_due ON subscriber_sequences (next_trigger_at) WHERE status = 'active'`);
  await knex.raw('DROP INDEX IF EXISTS subscriber_sequences_due_order');
};
