// @ts-check
/**
 * Sequences (docs/sequences.md): the sequence, its step tree, the enrolments and the record of
 * which (enrolment, step) pairs have run. Every row reaches its channel through the sequence,
 * and enrolments carry channel_id themselves because they are read by channel and subscriber.
 *
 * The tag triggers and the leaving rules live in a trigger on subscribers: every path that
 * changes a subscriber (one-statement creates, batched updates, imports, unsubscribe links,
 * bounces) writes SQL, and the trigger sees each of them in the writer's transaction, so the
 * enrolment change and its outbox event commit with the subscriber change or not at all.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    CREATE TABLE sequences (
      id bigserial PRIMARY KEY,
      channel_id bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
      label text NOT NULL,
      active boolean NOT NULL DEFAULT false,
      track_opens boolean NOT NULL DEFAULT true,
      track_clicks boolean NOT NULL DEFAULT true,
      use_any_email_server boolean NOT NULL DEFAULT true,
      email_server_ids bigint[] NOT NULL DEFAULT '{}',
      init_tag text,
      init_segment_id bigint REFERENCES segments (id),
      topic_id bigint,
      excluded_segment_ids bigint[] NOT NULL DEFAULT '{}',
      parent_sequence_id bigint REFERENCES sequences (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`);
  await knex.raw('CREATE INDEX sequences_channel_created ON sequences (channel_id, created_at, id)');
  // The tag trigger looks up the channel's active sequences started by a tag, for every tag change.
  await knex.raw('CREATE INDEX sequences_init_tag ON sequences (channel_id, init_tag) WHERE active AND init_tag IS NOT NULL');
  await knex.raw('CREATE INDEX sequences_init_segment ON sequences (init_segment_id) WHERE init_segment_id IS NOT NULL');

  // A tree: each step has one child at most, except a condition, whose two children are its
  // branches (branch true / false). `position` is the depth-first index, kept by every change.
  await knex.raw(`
    CREATE TABLE sequence_steps (
      id bigserial PRIMARY KEY,
      sequence_id bigint NOT NULL REFERENCES sequences (id) ON DELETE CASCADE,
      parent_id bigint REFERENCES sequence_steps (id) ON DELETE CASCADE,
      action text NOT NULL CHECK (action IN ('entry_point', 'send_email', 'delay', 'delay_until_time', 'condition',
        'condition_branch', 'move_to_sequence', 'add_tag_to_subscriber', 'remove_tag_from_subscriber',
        'deactivate_subscriber', 'make_http_request')),
      label text,
      branch boolean,
      position integer NOT NULL,
      template_id bigint REFERENCES templates (id),
      target_sequence_id bigint REFERENCES sequences (id),
      settings jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CHECK ((action = 'condition_branch') = (branch IS NOT NULL)),
      CHECK ((action = 'entry_point') = (parent_id IS NULL))
    )`);
  await knex.raw('CREATE INDEX sequence_steps_sequence ON sequence_steps (sequence_id, position)');
  await knex.raw('CREATE INDEX sequence_steps_parent ON sequence_steps (parent_id)');
  await knex.raw(`CREATE UNIQUE INDEX sequence_steps_one_entry ON sequence_steps (sequence_id) WHERE action = 'entry_point'`);
  await knex.raw('CREATE INDEX sequence_steps_template ON sequence_steps (template_id) WHERE template_id IS NOT NULL');
  await knex.raw('CREATE INDEX sequence_steps_target ON sequence_steps (target_sequence_id) WHERE target_sequence_id IS NOT NULL');

  await knex.raw(`
    CREATE TABLE subscriber_sequences (
      id bigserial PRIMARY KEY,
      sequence_id bigint NOT NULL REFERENCES sequences (id) ON DELETE CASCADE,
      subscriber_id bigint NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
      channel_id bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
      status text NOT NULL CHECK (status IN ('active', 'paused', 'busy', 'completed', 'removed', 'error')),
      started_at timestamptz NOT NULL,
      completed_at timestamptz,
      next_trigger_at timestamptz,
      current_step_id bigint REFERENCES sequence_steps (id) ON DELETE SET NULL,
      error text,
      attempts integer NOT NULL DEFAULT 0,
      claimed_by text,
      lease_until timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      UNIQUE (sequence_id, subscriber_id)
    )`);
  // Due work is found by time alone: only active enrolments are in the index.
  await knex.raw(`CREATE INDEX subscriber_sequences_due ON subscriber_sequences (next_trigger_at) WHERE status = 'active'`);
  await knex.raw('CREATE INDEX subscriber_sequences_subscriber ON subscriber_sequences (subscriber_id)');
  await knex.raw('CREATE INDEX subscriber_sequences_list ON subscriber_sequences (sequence_id, created_at DESC, id DESC)');
  await knex.raw('CREATE INDEX subscriber_sequences_status ON subscriber_sequences (sequence_id, status)');
  await knex.raw('CREATE INDEX subscriber_sequences_step ON subscriber_sequences (current_step_id) WHERE current_step_id IS NOT NULL');

  // Each (enrolment, step) runs once: the runtime claims a pair by inserting it.
  await knex.raw(`
    CREATE TABLE sequence_step_runs (
      enrolment_id bigint NOT NULL REFERENCES subscriber_sequences (id) ON DELETE CASCADE,
      step_id bigint NOT NULL REFERENCES sequence_steps (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (enrolment_id, step_id)
    )`);
  await knex.raw('CREATE INDEX sequence_step_runs_step ON sequence_step_runs (step_id)');

  // A sequence email's events name their step, and per-step counters are kept as the
  // broadcasts' are (sharded rows summed at read time), never counted from raw events.
  await knex.raw(`ALTER TABLE email_events
    ADD COLUMN sequence_id bigint REFERENCES sequences (id) ON DELETE CASCADE,
    ADD COLUMN sequence_step_id bigint REFERENCES sequence_steps (id) ON DELETE SET NULL`);
  await knex.raw('CREATE INDEX email_events_sequence ON email_events (sequence_id) WHERE sequence_id IS NOT NULL');
  await knex.raw('CREATE INDEX email_events_sequence_step ON email_events (sequence_step_id, type) WHERE sequence_step_id IS NOT NULL');
  await knex.raw(`
    CREATE TABLE sequence_step_statistics (
      step_id bigint NOT NULL REFERENCES sequence_steps (id) ON DELETE CASCADE,
      counter text NOT NULL,
      shard smallint NOT NULL,
      recipients bigint NOT NULL,
      events bigint NOT NULL,
      PRIMARY KEY (step_id, counter, shard)
    )`);

  await knex.raw(SUBSCRIBER_TRIGGER_FUNCTION);
  await knex.raw(`CREATE TRIGGER subscribers_sequences_insert AFTER INSERT ON subscribers
    FOR EACH ROW WHEN (cardinality(NEW.tags) > 0) EXECUTE FUNCTION sequences_follow_subscriber()`);
  await knex.raw(`CREATE TRIGGER subscribers_sequences_update AFTER UPDATE ON subscribers
    FOR EACH ROW WHEN (OLD.tags IS DISTINCT FROM NEW.tags OR OLD.is_active IS DISTINCT FROM NEW.is_active
      OR OLD.confirmed_at IS DISTINCT FROM NEW.confirmed_at)
    EXECUTE FUNCTION sequences_follow_subscriber()`);
};

/**
 * docs/sequences.md, "Triggers and leaving". Times are the subscriber row's updated_at, the
 * writer's clock. An unconfirmed double opt-in subscriber's tags wait for the confirmation.
 */
const SUBSCRIBER_TRIGGER_FUNCTION = `
CREATE FUNCTION sequences_follow_subscriber() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  at timestamptz := NEW.updated_at;
  added text[] := '{}';
  removed text[] := '{}';
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.is_active AND NOT NEW.is_active THEN
    -- Unsubscribe, deactivation (API, step, bounce, complaint) and redaction all switch is_active off.
    WITH gone AS (
      UPDATE subscriber_sequences SET status = 'removed', next_trigger_at = NULL, claimed_by = NULL, lease_until = NULL, updated_at = at
       WHERE subscriber_id = NEW.id AND status IN ('active', 'paused', 'busy')
      RETURNING id, sequence_id, channel_id, current_step_id)
    INSERT INTO events (channel_id, type, data, created_at)
    SELECT g.channel_id, 'sequence.subscriber_removed', jsonb_build_object('sequence_id', g.sequence_id, 'subscriber_sequence_id', g.id,
             'status', 'removed', 'step_id', g.current_step_id, 'subscriber', jsonb_build_object('id', NEW.id, 'email', NEW.email)), at
      FROM gone g ORDER BY g.id;
    RETURN NULL;
  END IF;
  IF NOT NEW.is_active OR NEW.redacted_at IS NOT NULL THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    added := NEW.tags;
  ELSE
    added := ARRAY(SELECT unnest(NEW.tags) EXCEPT SELECT unnest(OLD.tags));
    removed := ARRAY(SELECT unnest(OLD.tags) EXCEPT SELECT unnest(NEW.tags));
    IF OLD.requires_confirmation AND OLD.confirmed_at IS NULL AND NEW.confirmed_at IS NOT NULL THEN
      added := NEW.tags;
    END IF;
  END IF;
  IF NEW.requires_confirmation AND NEW.confirmed_at IS NULL THEN
    added := '{}';
  END IF;
  IF cardinality(added) = 0 AND cardinality(removed) = 0 THEN
    RETURN NULL;
  END IF;

  IF cardinality(removed) > 0 THEN
    WITH gone AS (
      UPDATE subscriber_sequences e SET status = 'removed', next_trigger_at = NULL, claimed_by = NULL, lease_until = NULL, updated_at = at
        FROM sequences s
       WHERE e.subscriber_id = NEW.id AND e.sequence_id = s.id AND s.channel_id = NEW.channel_id
         AND s.init_tag = ANY (removed) AND e.status IN ('active', 'paused', 'busy')
      RETURNING e.id, e.sequence_id, e.channel_id, e.current_step_id)
    INSERT INTO events (channel_id, type, data, created_at)
    SELECT g.channel_id, 'sequence.subscriber_removed', jsonb_build_object('sequence_id', g.sequence_id, 'subscriber_sequence_id', g.id,
             'status', 'removed', 'step_id', g.current_step_id, 'subscriber', jsonb_build_object('id', NEW.id, 'email', NEW.email)), at
      FROM gone g ORDER BY g.id;
  END IF;

  IF cardinality(added) > 0 THEN
    WITH joined AS (
      INSERT INTO subscriber_sequences (sequence_id, subscriber_id, channel_id, status, started_at, next_trigger_at, current_step_id, created_at, updated_at)
      SELECT s.id, NEW.id, NEW.channel_id, 'active', at, at, entry.id, at, at
        FROM sequences s
        JOIN sequence_steps entry ON entry.sequence_id = s.id AND entry.action = 'entry_point'
       WHERE s.channel_id = NEW.channel_id AND s.active AND s.init_tag = ANY (added)
       ORDER BY s.id
      ON CONFLICT (sequence_id, subscriber_id) DO NOTHING
      RETURNING id, sequence_id, channel_id, current_step_id)
    INSERT INTO events (channel_id, type, data, created_at)
    SELECT j.channel_id, 'sequence.subscriber_added', jsonb_build_object('sequence_id', j.sequence_id, 'subscriber_sequence_id', j.id,
             'status', 'active', 'step_id', j.current_step_id, 'subscriber', jsonb_build_object('id', NEW.id, 'email', NEW.email)), at
      FROM joined j ORDER BY j.id;
  END IF;
  RETURN NULL;
END $$`;

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP TRIGGER IF EXISTS subscribers_sequences_update ON subscribers');
  await knex.raw('DROP TRIGGER IF EXISTS subscribers_sequences_insert ON subscribers');
  await knex.raw('DROP FUNCTION IF EXISTS sequences_follow_subscriber()');
  await knex.raw('DROP TABLE IF EXISTS sequence_step_statistics');
  await knex.raw('ALTER TABLE email_events DROP COLUMN IF EXISTS sequence_step_id, DROP COLUMN IF EXISTS sequence_id');
  await knex.raw('DROP TABLE IF EXISTS sequence_step_runs');
  await knex.raw('DROP TABLE IF EXISTS subscriber_sequences');
  await knex.raw('DROP TABLE IF EXISTS sequence_steps');
  await knex.raw('DROP TABLE IF EXISTS sequences');
};
