// @ts-check
/**
 * Announces every committed change to a form or its blocks on the channel
 * `mailcast_opt_in_forms_changed`, so an api process that keeps forms in memory drops them
 * (docs/opt-in-forms.md, "The form in memory"). A trigger rather than a NOTIFY in each write:
 * it also hears the changes made by cascades (a channel or template deleted) and by hand.
 * Statement-level with an empty payload: the listeners empty their whole cache, and form edits
 * are rare, so PostgreSQL serializing the commits of notifying transactions costs nothing.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    CREATE FUNCTION mailcast_opt_in_forms_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('mailcast_opt_in_forms_changed', '');
      RETURN NULL;
    END $$`);
  for (const table of ['opt_in_forms', 'opt_in_form_blocks']) {
    await knex.raw(`
      CREATE TRIGGER ${table}_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}
        FOR EACH STATEMENT EXECUTE FUNCTION mailcast_opt_in_forms_changed()`);
  }
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  for (const table of ['opt_in_forms', 'opt_in_form_blocks']) await knex.raw(`DROP TRIGGER ${table}_changed ON ${table}`);
  await knex.raw('DROP FUNCTION mailcast_opt_in_forms_changed()');
};
