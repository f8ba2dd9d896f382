// @ts-check
/**
 * The reputation guard (docs/reputation-guard.md):
 * - `channels.reputation_guard`: the keys of the channel's guard settings it set (a partial
 *   object); every read fills the rest with the defaults, as the brand kit does.
 * - `broadcasts.pause_reason`: why the guard paused a broadcast (`hard_bounce_rate`,
 *   `complaint_rate`); null for a pause by a person, and cleared by resume.
 * - `broadcasts.guard_baseline`: the figures when the guard last paused the broadcast; after a
 *   resume the guard judges only what came after them.
 * - `email_servers.deactivated_reason`: why the guard took a server out of rotation; cleared when
 *   the server is switched on again.
 * - `email_servers.guard_reset`: when a person switched the server on again, the hour and that
 *   hour's counts then: the guard judges the server on what came after.
 * - `broadcast_recipients.email_server_id`: the server that answered for the recipient, written
 *   with its outcome, so a later complaint or bounce counts against that server.
 * - `broadcast_reputation`: a broadcast's hard bounces and complaints, sharded like
 *   broadcast_statistics so concurrent group commits rarely share a row. Sends are read from
 *   broadcast_statistics' `processed` counter; nothing is ever recounted.
 * - `email_server_reputation`: per server and hour, what it was handed, its hard bounces and
 *   complaints; the guard sums the last 24 hourly rows.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`ALTER TABLE channels
    ADD COLUMN reputation_guard jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(reputation_guard) = 'object')`);
  await knex.raw(`ALTER TABLE broadcasts ADD COLUMN pause_reason text, ADD COLUMN guard_baseline jsonb`);
  await knex.raw(`ALTER TABLE email_servers ADD COLUMN deactivated_reason text, ADD COLUMN guard_reset jsonb`);
  await knex.raw(`ALTER TABLE broadcast_recipients ADD COLUMN email_server_id bigint`);
  await knex.raw(`CREATE TABLE broadcast_reputation (
    broadcast_id bigint NOT NULL,
    shard smallint NOT NULL,
    hard_bounces bigint NOT NULL DEFAULT 0,
    complaints bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (broadcast_id, shard)
  )`);
  await knex.raw(`CREATE TABLE email_server_reputation (
    email_server_id bigint NOT NULL,
    hour timestamptz NOT NULL,
    shard smallint NOT NULL,
    sent bigint NOT NULL DEFAULT 0,
    hard_bounces bigint NOT NULL DEFAULT 0,
    complaints bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (email_server_id, hour, shard)
  )`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw(`DROP TABLE email_server_reputation`);
  await knex.raw(`DROP TABLE broadcast_reputation`);
  await knex.raw(`ALTER TABLE broadcast_recipients DROP COLUMN email_server_id`);
  await knex.raw(`ALTER TABLE email_servers DROP COLUMN deactivated_reason, DROP COLUMN guard_reset`);
  await knex.raw(`ALTER TABLE broadcasts DROP COLUMN pause_reason, DROP COLUMN guard_baseline`);
  await knex.raw(`ALTER TABLE channels DROP COLUMN reputation_guard`);
};
