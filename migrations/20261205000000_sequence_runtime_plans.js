// @ts-check
/**
 * Plans for the sequence runtime that hold whatever the statistics say (docs/sequences.md,
 * "Runtime"). After a burst of enrolments (a segment sync, an import, a delay ending for many at
 * once) the statistics lag behind the table until autovacuum analyses it, and three plans
 * on them went quadratic in the burst (bench/NOTES.md, "Sequences"):
 *
 * - The pick of due enrolments became a bitmap scan of every due row and a sort of them all,
 *   once per claim. It is now a function that walks the partial index of active enrolments in
 *   due order and stops at its limit: its own settings turn the other plans off for its one
 *   statement, its rows are locked for the caller's transaction as the statement's were, and its
 *   declared size is a claim's, so the caller reaches each row's subscriber by key.
 * - A record's move found its rows through the partial index of busy enrolments (estimated
 *   small, in fact full of the burst's dead entries until a vacuum) and rescanned its input once
 *   per row. The lapsed-lease index now covers rows with a lease (which only busy rows have), so
 *   the lapsed-lease scan and the heartbeat name `lease_until`; the move asks its status check as
 *   IS TRUE, which no index answers (sequence-step-records.ts), so it reaches each row by its key.
 * - A claim's probe for its (enrolment, step) run went through the index of runs by step, which
 *   on those statistics looked as good as the primary key and read every run of the step, once
 *   per claimed row. That index (there to delete a deleted step's runs) now holds the
 *   enrolment after the step, so either index finds the one row.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    CREATE FUNCTION mailcast_due_enrolments(due_by timestamptz, n integer)
    RETURNS TABLE (id bigint, subscriber_id bigint, current_step_id bigint)
    LANGUAGE sql VOLATILE ROWS 50
    SET enable_bitmapscan = off
    SET enable_seqscan = off
    SET enable_sort = off
    AS $$
      SELECT e.id, e.subscriber_id, e.current_step_id FROM subscriber_sequences e
       WHERE e.status = 'active' AND e.next_trigger_at <= due_by
       ORDER BY e.next_trigger_at LIMIT n FOR UPDATE SKIP LOCKED
    $$`);
  await knex.raw('DROP INDEX IF EXISTS subscriber_sequences_leased');
  await knex.raw('CREATE INDEX subscriber_sequences_leased ON subscriber_sequences (lease_until) WHERE lease_until IS NOT NULL');
  await knex.raw('DROP INDEX IF EXISTS sequence_step_runs_step');
  await knex.raw('CREATE INDEX sequence_step_runs_step ON sequence_step_runs (step_id, enrolment_id)');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP INDEX IF EXISTS sequence_step_runs_step');
  await knex.raw('CREATE INDEX sequence_step_runs_step ON sequence_step_runs (step_id)');
  await knex.raw('DROP INDEX IF EXISTS subscriber_sequences_leased');
  await knex.raw(`CREATE INDEX subscriber_sequences_leased ON subscriber_sequences (lease_until) WHERE status = 'busy'`);
  await knex.raw('DROP FUNCTION IF EXISTS mailcast_due_enrolments(timestamptz, integer)');
};
