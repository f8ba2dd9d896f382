// @ts-check
/**
 * Transactional email (docs/transactionals.md): one row per request, and the idempotency keys
 * of the requests that carried one, kept 24 hours per (token, key).
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    CREATE TABLE transactionals (
      id bigserial PRIMARY KEY,
      channel_id bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
      subscriber_id bigint NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
      to_email text NOT NULL,
      subject text NOT NULL,
      preheader text,
      body text NOT NULL,
      html_body text,
      reply_to text,
      data jsonb NOT NULL DEFAULT '{}',
      include_unsubscribe_link boolean NOT NULL DEFAULT false,
      email_server_id bigint REFERENCES email_servers (id) ON DELETE SET NULL,
      template_id bigint REFERENCES templates (id) ON DELETE SET NULL,
      status text NOT NULL CHECK (status IN ('queued', 'awaiting_confirmation', 'sent', 'delivered', 'bounced', 'failed', 'suppressed')),
      message_id text,
      error text,
      sent_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`);
  await knex.raw('CREATE INDEX transactionals_channel ON transactionals (channel_id, created_at DESC)');
  await knex.raw(`
    CREATE TABLE idempotency_keys (
      token_id bigint NOT NULL,
      key text NOT NULL,
      fingerprint text NOT NULL,
      response_status integer,
      response_body jsonb,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (token_id, key)
    )`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP TABLE IF EXISTS idempotency_keys');
  await knex.raw('DROP TABLE IF EXISTS transactionals');
};
