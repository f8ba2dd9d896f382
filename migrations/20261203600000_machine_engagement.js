// @ts-check
/**
 * Machine opens and clicks told apart (docs/engagement.md). Each recorded open and click says
 * whether a machine made it and why; `machine` is null on the other kinds, and on opens and
 * clicks recorded before classification existed (they count as neither human nor machine in the
 * human figures, rather than as people nobody checked).
 *
 * The human figures are kept like the others (docs/statistics.md, "How they stay fast"): the
 * counters `human_opened`/`human_clicked` and rollups of those kinds in the existing tables, and
 * per link the distinct recipients with a human click. Nullable columns and a defaulted one:
 * no table rewrite.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw('ALTER TABLE email_events ADD COLUMN machine boolean, ADD COLUMN machine_reason text');
  await knex.raw('ALTER TABLE broadcast_link_statistics ADD COLUMN human_clicks bigint NOT NULL DEFAULT 0');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('ALTER TABLE broadcast_link_statistics DROP COLUMN IF EXISTS human_clicks');
  await knex.raw('ALTER TABLE email_events DROP COLUMN IF EXISTS machine, DROP COLUMN IF EXISTS machine_reason');
};
