// @ts-check
/**
 * Topics (docs/topics.md) and opt-in forms (docs/opt-in-forms.md): the tables both areas share.
 *
 * A topic's value lives in the subscriber's own data (a top-level custom_data key or a tag), so
 * there is no per-subscriber topic table: `topic_value` reads it, and `receives_topic` is the one
 * definition of "this subscriber receives this topic" used by recipient building, the check
 * before each hand-off to SMTP, sequences and the topic counts.
 *
 * Form analytics are kept as counters (sharded daily rows summed at read time, like the
 * broadcasts' statistics), so a burst of submissions on one form never queues on one row.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    CREATE TABLE topics (
      id bigserial PRIMARY KEY,
      channel_id bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
      description text,
      storage text NOT NULL CHECK (storage IN ('custom_data', 'tag')),
      custom_data_key text,
      tag_name text,
      unset_receives boolean NOT NULL DEFAULT false,
      visible_on_preference_page boolean NOT NULL DEFAULT true,
      position integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CHECK ((storage = 'custom_data') = (custom_data_key IS NOT NULL)),
      CHECK ((storage = 'tag') = (tag_name IS NOT NULL)),
      CHECK (storage = 'custom_data' OR NOT unset_receives)
    )`);
  await knex.raw('CREATE UNIQUE INDEX topics_channel_name ON topics (channel_id, lower(name))');
  await knex.raw('CREATE UNIQUE INDEX topics_channel_key ON topics (channel_id, custom_data_key) WHERE custom_data_key IS NOT NULL');
  await knex.raw('CREATE UNIQUE INDEX topics_channel_tag ON topics (channel_id, tag_name) WHERE tag_name IS NOT NULL');
  await knex.raw('CREATE INDEX topics_channel_position ON topics (channel_id, position, id)');

  // true = yes, false = no, NULL = unset. Tag topics: tagged = yes, untagged = unset.
  await knex.raw(`
    CREATE FUNCTION topic_value(storage text, custom_data_key text, tag_name text, tags text[], custom_data jsonb)
    RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT CASE
        WHEN storage = 'tag' THEN CASE WHEN tag_name = ANY (tags) THEN true END
        WHEN custom_data -> custom_data_key IS NULL OR jsonb_typeof(custom_data -> custom_data_key) = 'null' THEN NULL
        ELSE custom_data -> custom_data_key IN ('true'::jsonb, '1'::jsonb, '"true"'::jsonb, '"1"'::jsonb)
      END
    $$`);
  await knex.raw(`
    CREATE FUNCTION receives_topic(storage text, custom_data_key text, tag_name text, unset_receives boolean,
                                   tags text[], custom_data jsonb)
    RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT coalesce(topic_value(storage, custom_data_key, tag_name, tags, custom_data), unset_receives)
    $$`);

  await knex.raw(`ALTER TABLE broadcasts
    ADD COLUMN topic_id bigint REFERENCES topics (id),
    ADD COLUMN excluded_segment_ids bigint[] NOT NULL DEFAULT '{}'`);
  await knex.raw('CREATE INDEX broadcasts_topic ON broadcasts (topic_id) WHERE topic_id IS NOT NULL');
  // Before this migration every topic_id was refused (no topic existed), so none is set.
  await knex.raw('ALTER TABLE sequences ADD CONSTRAINT sequences_topic_fk FOREIGN KEY (topic_id) REFERENCES topics (id)');
  await knex.raw('CREATE INDEX sequences_topic ON sequences (topic_id) WHERE topic_id IS NOT NULL');

  await knex.raw(`
    CREATE TABLE opt_in_forms (
      id bigserial PRIMARY KEY,
      channel_id bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
      identifier uuid NOT NULL UNIQUE,
      label text NOT NULL,
      form_type text NOT NULL DEFAULT 'embed' CHECK (form_type IN ('embed', 'web')),
      widget_type text NOT NULL DEFAULT 'inline_embed' CHECK (widget_type IN
        ('inline_embed', 'popup_modal', 'slide_in_panel', 'floating_button', 'sticky_bar', 'full_page')),
      enabled boolean NOT NULL DEFAULT true,
      allowed_embedding_domains text[] NOT NULL DEFAULT '{}',
      theme_settings jsonb NOT NULL DEFAULT '{}',
      automation_settings jsonb NOT NULL DEFAULT '{}',
      security_settings jsonb NOT NULL DEFAULT '{}',
      trigger_settings jsonb NOT NULL DEFAULT '{}',
      widget_settings jsonb NOT NULL DEFAULT '{}',
      confirmation_email_template_id bigint REFERENCES templates (id) ON DELETE SET NULL,
      welcome_email_template_id bigint REFERENCES templates (id) ON DELETE SET NULL,
      confirmation_redirect_url text,
      include_unsubscribe_link_in_confirmation boolean NOT NULL DEFAULT true,
      parent_form_id bigint REFERENCES opt_in_forms (id) ON DELETE CASCADE,
      variant_name text,
      variant_weight integer NOT NULL DEFAULT 50 CHECK (variant_weight BETWEEN 0 AND 100),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CHECK ((parent_form_id IS NULL) = (variant_name IS NULL))
    )`);
  await knex.raw('CREATE INDEX opt_in_forms_channel_created ON opt_in_forms (channel_id, created_at, id) WHERE parent_form_id IS NULL');
  await knex.raw('CREATE INDEX opt_in_forms_parent ON opt_in_forms (parent_form_id) WHERE parent_form_id IS NOT NULL');

  // placement 'form' is the form view, 'post_submission' what replaces it after a sign-up.
  await knex.raw(`
    CREATE TABLE opt_in_form_blocks (
      id bigserial PRIMARY KEY,
      form_id bigint NOT NULL REFERENCES opt_in_forms (id) ON DELETE CASCADE,
      placement text NOT NULL CHECK (placement IN ('form', 'post_submission')),
      block_type text NOT NULL CHECK (block_type IN ('heading', 'text', 'image', 'input_field', 'checkbox',
        'dropdown', 'radio_group', 'custom_field', 'topic', 'button', 'divider', 'spacer')),
      position integer NOT NULL,
      text_value text,
      input_field_label text,
      input_field_placeholder text,
      input_field_value_type text CHECK (input_field_value_type IN ('email', 'first_name', 'last_name', 'name', 'custom')),
      custom_field_key text CHECK (custom_field_key ~ '^[a-z][a-z0-9_]*$'),
      required boolean NOT NULL DEFAULT false,
      multiline boolean NOT NULL DEFAULT false,
      options jsonb NOT NULL DEFAULT '[]',
      checkbox_label text,
      topic_id bigint REFERENCES topics (id),
      image_url text,
      button_label text,
      custom_css text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`);
  await knex.raw('CREATE INDEX opt_in_form_blocks_form ON opt_in_form_blocks (form_id, placement, position, id)');
  await knex.raw('CREATE INDEX opt_in_form_blocks_topic ON opt_in_form_blocks (topic_id) WHERE topic_id IS NOT NULL');

  // Counters per form (a variant is its own form row), day (UTC) and shard.
  await knex.raw(`
    CREATE TABLE opt_in_form_daily_statistics (
      form_id bigint NOT NULL REFERENCES opt_in_forms (id) ON DELETE CASCADE,
      day date NOT NULL,
      shard smallint NOT NULL,
      views bigint NOT NULL DEFAULT 0,
      unique_views bigint NOT NULL DEFAULT 0,
      submissions bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (form_id, day, shard)
    )`);
  // A visitor (a random id kept by the browser) counts once per form and day as a unique view.
  await knex.raw(`
    CREATE TABLE opt_in_form_visitors (
      form_id bigint NOT NULL REFERENCES opt_in_forms (id) ON DELETE CASCADE,
      day date NOT NULL,
      visitor text NOT NULL,
      PRIMARY KEY (form_id, day, visitor)
    )`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP TABLE opt_in_form_visitors, opt_in_form_daily_statistics, opt_in_form_blocks, opt_in_forms');
  await knex.raw('ALTER TABLE sequences DROP CONSTRAINT sequences_topic_fk');
  await knex.raw('DROP INDEX sequences_topic');
  await knex.raw('ALTER TABLE broadcasts DROP COLUMN topic_id, DROP COLUMN excluded_segment_ids');
  await knex.raw('DROP FUNCTION receives_topic(text, text, text, boolean, text[], jsonb)');
  await knex.raw('DROP FUNCTION topic_value(text, text, text, text[], jsonb)');
  await knex.raw('DROP TABLE topics');
};
