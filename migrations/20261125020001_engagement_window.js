// @ts-check
/**
 * Repeated opens and clicks of one recipient within a short window are one engagement
 * (docs/security.md "Public routes"): the last recorded one is kept on the recipient's row, and
 * a load or click is recorded only when it moves that time past the window (one UPDATE decides,
 * so concurrent loads cannot both pass). Clicks are kept per link: another link is another click.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    ALTER TABLE broadcast_recipients
      ADD COLUMN last_opened_at timestamptz,
      ADD COLUMN last_clicked_at timestamptz,
      ADD COLUMN last_clicked_link_id bigint`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('ALTER TABLE broadcast_recipients DROP COLUMN last_opened_at, DROP COLUMN last_clicked_at, DROP COLUMN last_clicked_link_id');
};
