// @ts-check
/**
 * A channel written without a slug (by hand in SQL, by an operator's script) still gets one:
 * `channel-<id>` (docs/archive.md, "Channel slugs"). The API and the CLI derive a slug from the
 * name themselves; this only keeps every other insert from failing on the NOT NULL.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    CREATE FUNCTION channels_default_slug() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.slug := 'channel-' || NEW.id;
      IF EXISTS (SELECT 1 FROM channels WHERE slug = NEW.slug) THEN
        NEW.slug := NEW.slug || '-' || substr(md5(random()::text), 1, 8);
      END IF;
      RETURN NEW;
    END $$`);
  await knex.raw(`CREATE TRIGGER channels_default_slug BEFORE INSERT ON channels
    FOR EACH ROW WHEN (NEW.slug IS NULL) EXECUTE FUNCTION channels_default_slug()`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP TRIGGER channels_default_slug ON channels');
  await knex.raw('DROP FUNCTION channels_default_slug()');
};
