// @ts-check
/**
 * Aggregates the broadcast statistics read instead of scanning email_events (issue: statistics
 * fast at a million recipients). PgEmailEvents.record() keeps every table here up to date in
 * the statement that inserts the event, so they commit or roll back with it.
 *
 * Hot rows are sharded by recipient_id % 8 (the `shard` column): concurrent record() calls for
 * one broadcast would otherwise queue on one counter row per kind (and one rollup row per
 * bucket) for as long as the caller's transaction lasts. Readers sum the shards.
 *
 * No backfill here: email_events is empty until the sending pipeline, which ships with this
 * migration, records through record(). rebuildEmailEventAggregates() (adapters) rebuilds a
 * broadcast's aggregates from its raw events if ever needed.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  // The first occurrence per recipient: the primary key is the test of firstness, so exactly
  // one of several concurrent record() calls wins (INSERT … ON CONFLICT DO NOTHING RETURNING).
  // `kind` is an event kind or a derived counter ('undeliverable' = bounced or failed);
  // `link_id` is 0 except for the per-link first click.
  await knex.raw(`
    CREATE TABLE email_event_firsts (
      recipient_id bigint NOT NULL REFERENCES broadcast_recipients(id) ON DELETE CASCADE,
      kind text NOT NULL,
      link_id bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (recipient_id, kind, link_id)
    )`);

  // Per counter: unique recipients and events, in shards summed at read time.
  await knex.raw(`
    CREATE TABLE broadcast_statistics (
      broadcast_id bigint NOT NULL REFERENCES broadcasts(id) ON DELETE CASCADE,
      counter text NOT NULL,
      shard smallint NOT NULL,
      recipients bigint NOT NULL,
      events bigint NOT NULL,
      PRIMARY KEY (broadcast_id, counter, shard)
    )`);

  // Events per kind per bucket at three grains (minutes: 1, 5, 60), epoch-aligned like date_bin
  // and the domain's grid. A timeline sums the coarsest grain that divides its interval, so it
  // reads at most 336 buckets per kind and shard: 1m and 2m intervals (≤ 120 one-minute
  // buckets), 5m to 30m (≤ 216 five-minute buckets), 1h to 12h (≤ 336 hour buckets).
  await knex.raw(`
    CREATE TABLE broadcast_event_rollups (
      broadcast_id bigint NOT NULL REFERENCES broadcasts(id) ON DELETE CASCADE,
      kind text NOT NULL,
      grain_minutes smallint NOT NULL,
      bucket timestamptz NOT NULL,
      shard smallint NOT NULL,
      events bigint NOT NULL,
      PRIMARY KEY (broadcast_id, kind, grain_minutes, bucket, shard)
    )`);

  // Per link: every click and distinct recipients, first and last click.
  await knex.raw(`
    CREATE TABLE broadcast_link_statistics (
      link_id bigint NOT NULL REFERENCES broadcast_links(id) ON DELETE CASCADE,
      shard smallint NOT NULL,
      total_clicks bigint NOT NULL,
      unique_clicks bigint NOT NULL,
      first_clicked_at timestamptz NOT NULL,
      last_clicked_at timestamptz NOT NULL,
      PRIMARY KEY (link_id, shard)
    )`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  for (const table of ['broadcast_link_statistics', 'broadcast_event_rollups', 'broadcast_statistics', 'email_event_firsts']) {
    await knex.schema.dropTableIfExists(table);
  }
};
