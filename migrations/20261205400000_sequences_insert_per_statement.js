// @ts-check
/**
 * The tag trigger on inserts runs once per statement over the rows it inserted, not once per
 * row (docs/sequences.md, "Triggers and leaving"). A batch of sign-ups or an import batch is one
 * INSERT of many rows: the row trigger ran its plpgsql and its two statements for every tagged
 * row. The rules are the row
 * trigger's: an active, unredacted subscriber, confirmed if double opt-in asks for it, is
 * enrolled in each active sequence of its channel whose `init_tag` it carries, once per sequence;
 * the enrolments go in row order, then the sequence's order, and each has its
 * `sequence.subscriber_added` event with the row's `updated_at` as its time. Updates keep the
 * row trigger (it compares each row's old and new tags).
 */
const INSERTED_FUNCTION = `
CREATE FUNCTION sequences_follow_inserted_subscribers() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM inserted WHERE cardinality(tags) > 0) THEN
    RETURN NULL;
  END IF;
  WITH joined AS (
    INSERT INTO subscriber_sequences (sequence_id, subscriber_id, channel_id, status, started_at, next_trigger_at, current_step_id, created_at, updated_at)
    SELECT s.id, n.id, n.channel_id, 'active', n.updated_at, n.updated_at, entry.id, n.updated_at, n.updated_at
      FROM inserted n
      JOIN sequences s ON s.channel_id = n.channel_id AND s.active AND s.init_tag = ANY (n.tags)
      JOIN sequence_steps entry ON entry.sequence_id = s.id AND entry.action = 'entry_point'
     WHERE cardinality(n.tags) > 0 AND n.is_active AND n.redacted_at IS NULL
       AND NOT (n.requires_confirmation AND n.confirmed_at IS NULL)
     ORDER BY n.id, s.id
    ON CONFLICT (sequence_id, subscriber_id) DO NOTHING
    RETURNING id, sequence_id, subscriber_id, channel_id, current_step_id)
  INSERT INTO events (channel_id, type, data, created_at)
  SELECT j.channel_id, 'sequence.subscriber_added', jsonb_build_object('sequence_id', j.sequence_id, 'subscriber_sequence_id', j.id,
           'status', 'active', 'step_id', j.current_step_id, 'subscriber', jsonb_build_object('id', n.id, 'email', n.email)), n.updated_at
    FROM joined j JOIN inserted n ON n.id = j.subscriber_id
   ORDER BY j.id;
  RETURN NULL;
END $$`;

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.raw('DROP TRIGGER subscribers_sequences_insert ON subscribers');
  await knex.raw(INSERTED_FUNCTION);
  await knex.raw(`CREATE TRIGGER subscribers_sequences_insert AFTER INSERT ON subscribers
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION sequences_follow_inserted_subscribers()`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP TRIGGER subscribers_sequences_insert ON subscribers');
  await knex.raw('DROP FUNCTION sequences_follow_inserted_subscribers()');
  await knex.raw(`CREATE TRIGGER subscribers_sequences_insert AFTER INSERT ON subscribers
    FOR EACH ROW WHEN (cardinality(NEW.tags) > 0) EXECUTE FUNCTION sequences_follow_subscriber()`);
};
