// @ts-check
/**
 * `subscriber.preferences_updated` (docs/topics.md, "The event"): every statement that inserts or
 * updates subscribers writes one event per row whose value of some topic of its channel changed,
 * with `changes [{topic_id, from, to}]` computed by `topic_value`, the one definition of a value.
 * A trigger, not the callers: the API, the preference page, tags, imports, sequence steps and form
 * submissions all write subscriber rows, and none can forget it.
 *
 * Statement-level with transition tables, so an import of a million rows costs one set-based
 * join, not a million function calls; a statement on a channel without topics finds none at once.
 * The time is the row's updated_at (the writer's clock), as the sequences trigger does. A redacted
 * row emits nothing (redaction is `subscriber.deleted`).
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    CREATE FUNCTION topic_preferences_event(s subscribers, changes jsonb) RETURNS jsonb LANGUAGE sql STABLE AS $$
      SELECT jsonb_build_object(
        'subscriber', jsonb_build_object(
          'subscriber_id', s.id, 'email', s.email, 'first_name', s.first_name, 'last_name', s.last_name,
          'subscribed_at', to_char(s.subscribed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'unsubscribed_at', to_char(s.unsubscribed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'is_active', s.is_active, 'custom_data', s.custom_data, 'source', s.source),
        'changes', changes)
    $$`);
  await knex.raw(`
    CREATE FUNCTION subscribers_topic_changes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- An installation without topics: nothing to compare, not even a scan of the statement's rows.
      IF NOT EXISTS (SELECT 1 FROM topics) THEN
        RETURN NULL;
      END IF;
      IF TG_OP = 'INSERT' THEN
        INSERT INTO events (channel_id, type, data, created_at)
        SELECT n.channel_id, 'subscriber.preferences_updated', topic_preferences_event(n, c.changes), n.updated_at
          FROM new_rows n
          CROSS JOIN LATERAL (
            SELECT jsonb_agg(jsonb_build_object('topic_id', t.id, 'from', NULL, 'to', v.value) ORDER BY t.position, t.id) AS changes
              FROM topics t, LATERAL (SELECT topic_value(t.storage, t.custom_data_key, t.tag_name, n.tags, n.custom_data) AS value) v
             WHERE t.channel_id = n.channel_id AND v.value IS NOT NULL) c
         WHERE n.redacted_at IS NULL AND c.changes IS NOT NULL
           AND n.channel_id IN (SELECT channel_id FROM topics)
         ORDER BY n.id;
      ELSE
        INSERT INTO events (channel_id, type, data, created_at)
        SELECT n.channel_id, 'subscriber.preferences_updated', topic_preferences_event(n, c.changes), n.updated_at
          FROM new_rows n
          JOIN old_rows o ON o.id = n.id
          CROSS JOIN LATERAL (
            SELECT jsonb_agg(jsonb_build_object('topic_id', t.id, 'from', v.before, 'to', v.after) ORDER BY t.position, t.id) AS changes
              FROM topics t, LATERAL (
                SELECT topic_value(t.storage, t.custom_data_key, t.tag_name, o.tags, o.custom_data) AS before,
                       topic_value(t.storage, t.custom_data_key, t.tag_name, n.tags, n.custom_data) AS after) v
             WHERE t.channel_id = n.channel_id AND v.before IS DISTINCT FROM v.after) c
         WHERE n.redacted_at IS NULL AND c.changes IS NOT NULL
           AND (o.tags IS DISTINCT FROM n.tags OR o.custom_data IS DISTINCT FROM n.custom_data)
           AND n.channel_id IN (SELECT channel_id FROM topics)
         ORDER BY n.id;
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER subscribers_topic_changes_insert AFTER INSERT ON subscribers
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION subscribers_topic_changes()`);
  await knex.raw(`CREATE TRIGGER subscribers_topic_changes_update AFTER UPDATE ON subscribers
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION subscribers_topic_changes()`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP TRIGGER subscribers_topic_changes_update ON subscribers');
  await knex.raw('DROP TRIGGER subscribers_topic_changes_insert ON subscribers');
  await knex.raw('DROP FUNCTION subscribers_topic_changes()');
  await knex.raw('DROP FUNCTION topic_preferences_event(subscribers, jsonb)');
};
