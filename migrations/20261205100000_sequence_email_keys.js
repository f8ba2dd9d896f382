// @ts-check
/**
 * A sequence email's rows lose the foreign keys to its sequence and step, which every email
 * checked on the same two parent rows (docs/sequences.md, "Runtime"): each check takes a KEY
 * SHARE lock on the sequence's or the step's row, and the groups that dispatchers record at once
 * share those locks through multixacts; five checks per email (its two email_events rows twice,
 * its step run once), where a broadcast's email checks none (20261122050000_sending_write_path.js).
 * What the keys did on delete is now done by the deletes themselves: deleting a sequence deletes
 * its email events after it (its enrolments and their step runs still go by their own keys);
 * deleting steps deletes their runs and clears the step from their email events. A step record
 * that commits while its step is deleted keeps the step's id, which then names nothing (the key
 * used to fail the whole group instead, to be sent again).
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    ALTER TABLE email_events
      DROP CONSTRAINT IF EXISTS email_events_sequence_id_fkey,
      DROP CONSTRAINT IF EXISTS email_events_sequence_step_id_fkey`);
  await knex.raw('ALTER TABLE sequence_step_runs DROP CONSTRAINT IF EXISTS sequence_step_runs_step_id_fkey');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw(
    'ALTER TABLE sequence_step_runs ADD CONSTRAINT sequence_step_runs_step_id_fkey FOREIGN KEY (step_id) REFERENCES sequence_steps (id) ON DELETE CASCADE NOT VALID',
  );
  await knex.raw(`
    ALTER TABLE email_events
      ADD CONSTRAINT email_events_sequence_id_fkey FOREIGN KEY (sequence_id) REFERENCES sequences (id) ON DELETE CASCADE NOT VALID,
      ADD CONSTRAINT email_events_sequence_step_id_fkey FOREIGN KEY (sequence_step_id) REFERENCES sequence_steps (id) ON DELETE SET NULL NOT VALID`);
};
