// @ts-check
/**
 * A change counter for the audience (docs/segments.md, "subscribers_count"): every statement
 * that changes subscribers, or a recipient's first open or click, takes the next value of
 * `audience_changes`. Kept counts (list totals, segment counts) are keyed by that value, so a
 * committed change is counted at the next read instead of after a time-to-live. A sequence,
 * not a row, because taking a value neither waits for nor blocks other writers, and a
 * statement-level trigger costs one call per statement, not per row.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw('CREATE SEQUENCE audience_changes');
  await knex.raw(`
    CREATE FUNCTION note_audience_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM nextval('audience_changes');
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER subscribers_audience_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON subscribers
    FOR EACH STATEMENT EXECUTE FUNCTION note_audience_change()`);
  await knex.raw(`CREATE TRIGGER recipients_audience_change AFTER UPDATE OF opened_at, clicked_at OR DELETE OR TRUNCATE ON broadcast_recipients
    FOR EACH STATEMENT EXECUTE FUNCTION note_audience_change()`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP TRIGGER recipients_audience_change ON broadcast_recipients');
  await knex.raw('DROP TRIGGER subscribers_audience_change ON subscribers');
  await knex.raw('DROP FUNCTION note_audience_change()');
  await knex.raw('DROP SEQUENCE audience_changes');
};
