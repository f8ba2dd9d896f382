// @ts-check
/**
 * Asynchronous bounces and complaints (docs/bounces.md).
 * - `bounce_notifications`: one row per (recipient, kind) recorded, so the same notification,
 *   delivered twice or by two routes (a provider's webhook and a DSN), counts once; the soft
 *   bounces of an address in a channel are counted from it for the suppression threshold.
 * - `inbound_replays`: what a receiver has already accepted (a Mailgun token, an SNS message id,
 *   a SendGrid signature), so a replayed request is refused; rows older than a day are pruned.
 * - `broadcast_recipients.complained_at`: the recipient's email was reported as spam.
 * - `email_servers.bounce_domain`: set, the envelope sender is a VERP address at that domain.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    CREATE TABLE bounce_notifications (
      id bigserial PRIMARY KEY,
      channel_id bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
      recipient_id bigint NOT NULL REFERENCES broadcast_recipients (id) ON DELETE CASCADE,
      email text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('hard_bounce', 'soft_bounce', 'complaint')),
      source text NOT NULL,
      reason text NOT NULL DEFAULT '',
      occurred_at timestamptz NOT NULL,
      CONSTRAINT bounce_notifications_once UNIQUE (recipient_id, kind)
    )`);
  await knex.raw('CREATE INDEX bounce_notifications_address ON bounce_notifications (channel_id, email, kind, occurred_at)');
  await knex.raw(`
    CREATE TABLE inbound_replays (
      source text NOT NULL,
      key text NOT NULL,
      seen_at timestamptz NOT NULL,
      PRIMARY KEY (source, key)
    )`);
  await knex.raw('CREATE INDEX inbound_replays_seen ON inbound_replays (seen_at)');
  await knex.raw('ALTER TABLE broadcast_recipients ADD COLUMN complained_at timestamptz');
  await knex.raw('ALTER TABLE email_servers ADD COLUMN bounce_domain text');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('ALTER TABLE email_servers DROP COLUMN IF EXISTS bounce_domain');
  await knex.raw('ALTER TABLE broadcast_recipients DROP COLUMN IF EXISTS complained_at');
  await knex.raw('DROP TABLE IF EXISTS inbound_replays');
  await knex.raw('DROP TABLE IF EXISTS bounce_notifications');
};
