// @ts-check
/**
 * An enrolment's row loses two foreign keys that checked nothing the others do not
 * (docs/sequences.md, "Runtime"):
 * - channel_id → channels: an enrolment's channel is its sequence's, and deleting a channel
 *   deletes its sequences, whose key (sequence_id, ON DELETE CASCADE) deletes their enrolments;
 * - current_step_id → sequence_steps: checked at every enrolment and at every move of every
 *   enrolment to its next step (a KEY SHARE lock on the step's row per row, shared by every
 *   dispatcher recording the same step). Deleting steps now clears them from the enrolments
 *   that still name them (the waiting ones were moved on before: DeleteSequenceStep), what the
 *   key's ON DELETE SET NULL did. A step record whose next step was deleted meanwhile leaves the
 *   enrolment at the step that ran, due at once, to advance again on the tree as it is then.
 * The sequence and subscriber keys stay: their cascades delete the enrolments with either.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    ALTER TABLE subscriber_sequences
      DROP CONSTRAINT IF EXISTS subscriber_sequences_channel_id_fkey,
      DROP CONSTRAINT IF EXISTS subscriber_sequences_current_step_id_fkey`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw(`
    ALTER TABLE subscriber_sequences
      ADD CONSTRAINT subscriber_sequences_channel_id_fkey FOREIGN KEY (channel_id) REFERENCES channels (id) ON DELETE CASCADE NOT VALID,
      ADD CONSTRAINT subscriber_sequences_current_step_id_fkey FOREIGN KEY (current_step_id) REFERENCES sequence_steps (id) ON DELETE SET NULL NOT VALID`);
};
