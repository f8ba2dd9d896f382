// @ts-check
/**
 * Templates (docs/templates.md): the confirmation templates become the channel's templates, of
 * two purposes. The table is renamed rather than copied, so existing confirmation templates and
 * the double opt-in requests that name them keep their ids. Broadcasts remember the template
 * they were written from, so a template in use by one being sent cannot be deleted.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw('ALTER TABLE confirmation_templates RENAME TO templates');
  await knex.raw('ALTER TABLE templates RENAME COLUMN name TO label');
  await knex.raw('ALTER TABLE templates RENAME COLUMN is_default TO default_confirmation');
  await knex.raw('ALTER INDEX confirmation_templates_one_default RENAME TO templates_one_default_confirmation');
  await knex.raw(`
    ALTER TABLE templates
      ALTER COLUMN subject DROP NOT NULL,
      ALTER COLUMN body DROP NOT NULL,
      ADD COLUMN preheader text,
      ADD COLUMN html_body text,
      ADD COLUMN template_purpose text NOT NULL DEFAULT 'broadcast' CHECK (template_purpose IN ('broadcast', 'confirmation'))`);
  await knex.raw(`UPDATE templates SET template_purpose = 'confirmation'`);
  await knex.raw('ALTER TABLE broadcasts ADD COLUMN template_id bigint REFERENCES templates (id) ON DELETE SET NULL');
  await knex.raw('CREATE INDEX broadcasts_template ON broadcasts (template_id) WHERE template_id IS NOT NULL');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('ALTER TABLE broadcasts DROP COLUMN template_id');
  await knex.raw(`DELETE FROM templates WHERE template_purpose <> 'confirmation' OR subject IS NULL OR body IS NULL`);
  await knex.raw(`
    ALTER TABLE templates
      DROP COLUMN preheader, DROP COLUMN html_body, DROP COLUMN template_purpose,
      ALTER COLUMN subject SET NOT NULL, ALTER COLUMN body SET NOT NULL`);
  await knex.raw('ALTER INDEX templates_one_default_confirmation RENAME TO confirmation_templates_one_default');
  await knex.raw('ALTER TABLE templates RENAME COLUMN default_confirmation TO is_default');
  await knex.raw('ALTER TABLE templates RENAME COLUMN label TO name');
  await knex.raw('ALTER TABLE templates RENAME TO confirmation_templates');
};
