// @ts-check
/**
 * The subscriber list's address fragment that starts with `@` (a domain, or its start) is read on
 * this btree of the address's domain rather than the trigram index (docs/subscribers.md, "A
 * domain"): a domain's trigrams (`  d`, `tes`, `est` of `@d1.test`) are in most addresses, so
 * the trigram index reads long posting lists and hands back candidates that each need the
 * address checked again; this index reads the domain's range and nothing else. text_pattern_ops
 * lets `LIKE 'prefix%'` use it whatever the database's collation.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`CREATE INDEX IF NOT EXISTS subscribers_email_domain ON subscribers (channel_id, (split_part(email, '@', 2)) text_pattern_ops)`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP INDEX IF EXISTS subscribers_email_domain');
};
