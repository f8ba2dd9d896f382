// @ts-check
/**
 * Segments are rule sets evaluated by the database when read or sent to (docs/segments.md):
 * the segment row keeps its match and rules; segment_memberships stays unused.
 *
 * The engagement rules read the first open and click kept on each recipient row. The partial
 * indexes answer "who opened (clicked) broadcast N" and "who opened (clicked) anything since T"
 * from the few rows that have one, without touching the recipients that never did.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    ALTER TABLE segments
      ADD COLUMN description text,
      ADD COLUMN match text NOT NULL DEFAULT 'all',
      ADD COLUMN rules jsonb NOT NULL DEFAULT '[]'`);
  await knex.raw('CREATE INDEX segments_channel_created ON segments (channel_id, created_at, id)');
  for (const column of ['opened_at', 'clicked_at']) {
    await knex.raw(
      `CREATE INDEX broadcast_recipients_${column}_by_broadcast ON broadcast_recipients (broadcast_id, subscriber_id) WHERE ${column} IS NOT NULL`,
    );
    await knex.raw(`CREATE INDEX broadcast_recipients_${column}_by_time ON broadcast_recipients (${column}, subscriber_id) WHERE ${column} IS NOT NULL`);
  }
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  for (const column of ['opened_at', 'clicked_at']) {
    await knex.raw(`DROP INDEX IF EXISTS broadcast_recipients_${column}_by_broadcast`);
    await knex.raw(`DROP INDEX IF EXISTS broadcast_recipients_${column}_by_time`);
  }
  await knex.raw('DROP INDEX IF EXISTS segments_channel_created');
  await knex.raw('ALTER TABLE segments DROP COLUMN description, DROP COLUMN match, DROP COLUMN rules');
};
