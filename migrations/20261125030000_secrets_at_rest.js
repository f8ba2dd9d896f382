// @ts-check
/**
 * Secrets at rest and the email server's full shape (docs/secrets.md, docs/email-servers.md).
 *
 * - broadcasts.tracking_secret becomes text, to hold a sealed envelope like the other secrets;
 *   an existing raw secret is kept as its base64 until the start-up pass seals it.
 * - email_servers: `tls` replaces `secure` (implicit when it was set, none for a loopback host,
 *   else starttls: the server must now offer STARTTLS before it sees a password), plus name,
 *   active, DKIM and the shared sending limits. The limits may already exist (another migration
 *   adds them too), hence the guard.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`ALTER TABLE broadcasts ALTER COLUMN tracking_secret TYPE text USING encode(tracking_secret, 'base64')`);

  await knex.schema.alterTable('email_servers', (t) => {
    t.text('name');
    t.text('tls').notNullable().defaultTo('starttls');
    t.boolean('active').notNullable().defaultTo(true);
    t.text('dkim_domain');
    t.text('dkim_selector');
    t.text('dkim_private_key');
  });
  await knex.raw(`
    UPDATE email_servers SET tls = CASE
      WHEN secure THEN 'implicit'
      WHEN lower(host) IN ('localhost', '::1', '[::1]') OR host ~ '^127\\.' THEN 'none'
      ELSE 'starttls' END`);
  await knex.raw(`ALTER TABLE email_servers ADD CONSTRAINT email_servers_tls CHECK (tls IN ('starttls', 'implicit', 'none'))`);
  await knex.schema.alterTable('email_servers', (t) => t.dropColumn('secure'));

  for (const column of ['max_per_second', 'max_per_minute', 'max_per_hour', 'max_per_day']) {
    if (!(await knex.schema.hasColumn('email_servers', column))) {
      await knex.schema.alterTable('email_servers', (t) => t.integer(column));
    }
  }
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.alterTable('email_servers', (t) => t.boolean('secure').notNullable().defaultTo(false));
  await knex.raw(`UPDATE email_servers SET secure = (tls = 'implicit')`);
  await knex.raw('ALTER TABLE email_servers DROP CONSTRAINT email_servers_tls');
  await knex.schema.alterTable('email_servers', (t) => {
    t.dropColumn('name');
    t.dropColumn('tls');
    t.dropColumn('active');
    t.dropColumn('dkim_domain');
    t.dropColumn('dkim_selector');
    t.dropColumn('dkim_private_key');
  });
  // Sealed values cannot go back to bytes here; the secret is dropped and made anew on next use.
  await knex.raw(`ALTER TABLE broadcasts ALTER COLUMN tracking_secret TYPE bytea USING NULL`);
};
