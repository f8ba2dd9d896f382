// @ts-check
/**
 * Subject tests (docs/subject-tests.md):
 * - `broadcasts.ab_test`: the test's settings (`{subjects, sample_percent, metric, wait_minutes}`),
 *   null for a broadcast without one.
 * - `broadcasts.ab_decide_at`: when the winner is due, set when the sample starts sending.
 * - `broadcasts.ab_winner` / `ab_decided_at`: written once, by a conditional UPDATE (only while
 *   `ab_decided_at` is null), so the decision happens once however many jobs try it.
 * - `broadcast_recipients.ab_variant`: the subject a sample recipient gets (0-based); null for the
 *   rest, who wait with `next_attempt_at = 'infinity'` until the decision releases them.
 * - A partial index over the sample's rows: the decision and the statistics read only them.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`ALTER TABLE broadcasts
    ADD COLUMN ab_test jsonb CHECK (ab_test IS NULL OR jsonb_typeof(ab_test) = 'object'),
    ADD COLUMN ab_decide_at timestamptz,
    ADD COLUMN ab_winner smallint,
    ADD COLUMN ab_decided_at timestamptz`);
  await knex.raw('ALTER TABLE broadcast_recipients ADD COLUMN ab_variant smallint');
  await knex.raw(
    'CREATE INDEX broadcast_recipients_ab_variant ON broadcast_recipients (broadcast_id, ab_variant) INCLUDE (status) WHERE ab_variant IS NOT NULL',
  );
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP INDEX IF EXISTS broadcast_recipients_ab_variant');
  await knex.raw('ALTER TABLE broadcast_recipients DROP COLUMN IF EXISTS ab_variant');
  await knex.raw(`ALTER TABLE broadcasts DROP COLUMN IF EXISTS ab_test, DROP COLUMN IF EXISTS ab_decide_at,
    DROP COLUMN IF EXISTS ab_winner, DROP COLUMN IF EXISTS ab_decided_at`);
};
