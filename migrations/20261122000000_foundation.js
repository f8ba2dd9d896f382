// @ts-check
/**
 * The whole schema the spec implies. Every row that belongs to a customer carries channel_id,
 * and every customer-facing index leads with it: all data is scoped to the caller's channel.
 *
 * Times are timestamptz; ids are bigint identities (the spec's integer ids).
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  // pg_trgm backs the partial, case-insensitive email filter of the subscriber list;
  // btree_gin lets one GIN index combine channel_id with tags / custom_data.
  await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  await knex.raw('CREATE EXTENSION IF NOT EXISTS btree_gin');

  await knex.schema.createTable('channels', (t) => {
    t.bigIncrements('id');
    t.text('name').notNullable();
    t.text('from_email');
    t.text('from_name');
    // Spec: track_opens / track_clicks default to "the channel's settings".
    t.boolean('track_opens').notNullable().defaultTo(true);
    t.boolean('track_clicks').notNullable().defaultTo(true);
    t.timestamps(true, true);
  });

  await knex.schema.createTable('api_tokens', (t) => {
    t.bigIncrements('id');
    t.bigInteger('channel_id').notNullable().references('channels.id').onDelete('CASCADE');
    // Only a SHA-256 of the token is kept (docs/auth.md: shown once, stored only as a hash).
    t.specificType('token_hash', 'bytea').notNullable().unique();
    t.text('token_prefix').notNullable();
    t.specificType('permissions', 'text[]').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
    t.index(['channel_id']);
  });

  await knex.schema.createTable('email_servers', (t) => {
    t.bigIncrements('id');
    t.bigInteger('channel_id').notNullable().references('channels.id').onDelete('CASCADE');
    t.text('host').notNullable();
    t.integer('port').notNullable();
    t.boolean('secure').notNullable().defaultTo(false);
    t.text('username');
    t.text('password');
    t.text('from_email');
    t.text('from_name');
    t.timestamps(true, true);
    t.index(['channel_id']);
  });

  await knex.schema.createTable('segments', (t) => {
    t.bigIncrements('id');
    t.bigInteger('channel_id').notNullable().references('channels.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.timestamps(true, true);
    t.index(['channel_id']);
  });

  await knex.schema.createTable('confirmation_templates', (t) => {
    t.bigIncrements('id');
    t.bigInteger('channel_id').notNullable().references('channels.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('subject').notNullable();
    t.text('body').notNullable();
    t.boolean('is_default').notNullable().defaultTo(false);
    t.timestamps(true, true);
    t.index(['channel_id']);
  });
  // At most one default template per channel.
  await knex.raw('CREATE UNIQUE INDEX confirmation_templates_one_default ON confirmation_templates (channel_id) WHERE is_default');

  await knex.schema.createTable('subscribers', (t) => {
    t.bigIncrements('id');
    t.bigInteger('channel_id').notNullable().references('channels.id').onDelete('CASCADE');
    // Stored trimmed and lower-cased (docs/subscribers.md), so equality is exact.
    t.text('email').notNullable();
    t.text('first_name');
    t.text('last_name');
    t.text('ip_address');
    t.boolean('is_active').notNullable().defaultTo(true);
    t.text('source').notNullable().defaultTo('api_subscription');
    t.timestamp('subscribed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('unsubscribed_at', { useTz: true });
    t.timestamp('confirmed_at', { useTz: true });
    // Created through double opt-in: active, but no broadcast until confirmed_at is set.
    t.boolean('requires_confirmation').notNullable().defaultTo(false);
    t.timestamp('redacted_at', { useTz: true });
    t.specificType('tags', 'text[]').notNullable().defaultTo('{}');
    t.jsonb('custom_data').notNullable().defaultTo('{}');
    t.timestamps(true, true);
    // One subscriber per address per channel; creates upsert on this key (never check-then-insert).
    t.unique(['channel_id', 'email']);
    t.index(['channel_id', 'created_at', 'id']);
  });
  await knex.raw('CREATE INDEX subscribers_email_trgm ON subscribers USING gin (email gin_trgm_ops)');
  await knex.raw('CREATE INDEX subscribers_tags ON subscribers USING gin (channel_id, tags)');
  await knex.raw('CREATE INDEX subscribers_custom_data ON subscribers USING gin (custom_data jsonb_path_ops)');
  // Recipient materialisation scans the active, sendable subscribers of a channel.
  await knex.raw(
    `CREATE INDEX subscribers_sendable ON subscribers (channel_id, id)
     WHERE is_active AND (NOT requires_confirmation OR confirmed_at IS NOT NULL)`,
  );

  await knex.schema.createTable('segment_memberships', (t) => {
    t.bigInteger('segment_id').notNullable().references('segments.id').onDelete('CASCADE');
    t.bigInteger('subscriber_id').notNullable().references('subscribers.id').onDelete('CASCADE');
    t.primary(['segment_id', 'subscriber_id']);
    t.index(['subscriber_id']);
  });

  await knex.schema.createTable('subscriber_confirmations', (t) => {
    t.bigIncrements('id');
    t.bigInteger('channel_id').notNullable().references('channels.id').onDelete('CASCADE');
    t.bigInteger('subscriber_id').notNullable().references('subscribers.id').onDelete('CASCADE');
    // The public link carries the token; only its hash is stored.
    t.specificType('token_hash', 'bytea').notNullable().unique();
    t.bigInteger('template_id').references('confirmation_templates.id').onDelete('SET NULL');
    t.text('reply_to');
    t.boolean('include_unsubscribe_link').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('email_sent_at', { useTz: true });
    t.timestamp('confirmed_at', { useTz: true });
    // A newer request supersedes older links (spec: "new confirmation created").
    t.timestamp('superseded_at', { useTz: true });
    t.index(['subscriber_id']);
  });

  await knex.schema.createTable('broadcasts', (t) => {
    t.bigIncrements('id');
    t.bigInteger('channel_id').notNullable().references('channels.id').onDelete('CASCADE');
    t.text('name');
    t.text('subject').notNullable();
    t.text('preheader');
    t.text('body');
    t.text('html_body');
    t.boolean('include_unsubscribe_link').notNullable().defaultTo(true);
    t.text('reply_to');
    t.text('status').notNullable().defaultTo('draft');
    t.boolean('track_opens').notNullable();
    t.boolean('track_clicks').notNullable();
    t.boolean('use_any_email_server').notNullable().defaultTo(false);
    t.jsonb('email_headers').notNullable().defaultTo('[]');
    t.specificType('tags', 'text[]').notNullable().defaultTo('{}');
    t.specificType('segment_ids', 'bigint[]').notNullable().defaultTo('{}');
    t.specificType('email_server_ids', 'bigint[]').notNullable().defaultTo('{}');
    t.integer('total_recipients').notNullable().defaultTo(0);
    t.integer('broadcast_recipients_count').notNullable().defaultTo(0);
    t.timestamp('scheduled_send_at', { useTz: true });
    t.text('scheduled_timezone');
    t.timestamp('begin_send_at', { useTz: true });
    t.timestamp('sent_at', { useTz: true });
    // Bumped on every state change: jobs carry (id, version) and drop themselves when stale.
    t.integer('version').notNullable().defaultTo(0);
    t.timestamps(true, true);
    t.index(['channel_id', 'created_at', 'id']);
  });
  // The sweep that starts due scheduled broadcasts whose job was lost.
  await knex.raw(`CREATE INDEX broadcasts_due ON broadcasts (scheduled_send_at) WHERE status = 'future_scheduled'`);

  await knex.schema.createTable('broadcast_recipients', (t) => {
    t.bigIncrements('id');
    t.bigInteger('broadcast_id').notNullable().references('broadcasts.id').onDelete('CASCADE');
    t.bigInteger('subscriber_id').notNullable().references('subscribers.id').onDelete('CASCADE');
    // pending → claimed → sent | failed | bounced | skipped; delayed goes back to pending later.
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('claimed_by');
    t.timestamp('lease_expires_at', { useTz: true });
    t.timestamp('next_attempt_at', { useTz: true });
    // Fixed when the recipient is created, so a resend after a crash keeps its Message-ID.
    t.text('message_id').notNullable();
    t.timestamp('sent_at', { useTz: true });
    t.timestamp('delivered_at', { useTz: true });
    t.timestamp('failed_at', { useTz: true });
    t.text('error');
    // Each subscriber receives a broadcast at most once (docs/broadcasts-and-sending.md: exactly once).
    t.unique(['broadcast_id', 'subscriber_id']);
  });
  await knex.raw(
    `CREATE INDEX broadcast_recipients_claimable ON broadcast_recipients (broadcast_id, id)
     WHERE status IN ('pending', 'claimed')`,
  );
  await knex.raw('CREATE INDEX broadcast_recipients_status ON broadcast_recipients (broadcast_id, status)');
  await knex.raw('CREATE INDEX broadcast_recipients_subscriber ON broadcast_recipients (subscriber_id)');

  await knex.schema.createTable('broadcast_links', (t) => {
    t.bigIncrements('id');
    t.bigInteger('broadcast_id').notNullable().references('broadcasts.id').onDelete('CASCADE');
    t.text('identifier').notNullable();
    t.text('url').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['broadcast_id', 'url']);
    t.unique(['broadcast_id', 'identifier']);
  });

  // Every recorded thing that happened to one recipient's email: processed, delivered,
  // delayed, bounced, failed, opened, clicked, complained, unsubscribed.
  await knex.schema.createTable('email_events', (t) => {
    t.bigIncrements('id');
    t.bigInteger('channel_id').notNullable().references('channels.id').onDelete('CASCADE');
    t.bigInteger('broadcast_id').references('broadcasts.id').onDelete('CASCADE');
    t.bigInteger('recipient_id').references('broadcast_recipients.id').onDelete('CASCADE');
    t.bigInteger('subscriber_id').references('subscribers.id').onDelete('SET NULL');
    t.bigInteger('link_id').references('broadcast_links.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.timestamp('occurred_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.jsonb('data').notNullable().defaultTo('{}');
  });
  // Timeline buckets and unique-recipient counts per broadcast and type.
  await knex.raw('CREATE INDEX email_events_timeline ON email_events (broadcast_id, type, occurred_at)');
  await knex.raw('CREATE INDEX email_events_recipient ON email_events (broadcast_id, type, recipient_id)');
  await knex.raw('CREATE INDEX email_events_link ON email_events (link_id, recipient_id) WHERE link_id IS NOT NULL');

  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.bigIncrements('id');
    t.bigInteger('channel_id').notNullable().references('channels.id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.text('description');
    t.boolean('active').notNullable().defaultTo(true);
    t.specificType('event_types', 'text[]').notNullable();
    t.integer('retries_to_attempt').notNullable().defaultTo(6);
    t.text('secret').notNullable();
    t.integer('last_response_code');
    t.timestamp('last_sent_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['channel_id', 'created_at', 'id']);
  });

  // The transactional outbox: written in the same transaction as the change that caused
  // the event, fanned out to endpoints by the dispatcher (docs/webhooks.md).
  await knex.schema.createTable('events', (t) => {
    t.bigIncrements('id');
    t.bigInteger('channel_id').notNullable().references('channels.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.jsonb('data').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('dispatched_at', { useTz: true });
  });
  await knex.raw('CREATE INDEX events_undispatched ON events (id) WHERE dispatched_at IS NULL');

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.bigIncrements('id');
    t.bigInteger('channel_id').notNullable().references('channels.id').onDelete('CASCADE');
    t.bigInteger('event_id').notNullable().references('events.id').onDelete('CASCADE');
    t.bigInteger('webhook_endpoint_id').notNullable().references('webhook_endpoints.id').onDelete('CASCADE');
    t.text('event_type').notNullable();
    // pending | succeeded | failed | cancelled
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempt_number').notNullable().defaultTo(0);
    t.integer('response_status');
    t.text('response_body');
    t.text('error_message');
    t.timestamp('first_attempt_at', { useTz: true });
    t.timestamp('last_attempt_at', { useTz: true });
    t.timestamp('next_retry_at', { useTz: true });
    t.timestamp('successfully_delivered_at', { useTz: true });
    t.timestamps(true, true);
    // One delivery record per (event, endpoint) (docs/webhooks.md), so fan-out is idempotent.
    t.unique(['event_id', 'webhook_endpoint_id']);
    t.index(['webhook_endpoint_id', 'created_at', 'id']);
  });
  await knex.raw(`CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (next_retry_at) WHERE status = 'pending'`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  for (const table of [
    'webhook_deliveries',
    'events',
    'webhook_endpoints',
    'email_events',
    'broadcast_links',
    'broadcast_recipients',
    'broadcasts',
    'subscriber_confirmations',
    'segment_memberships',
    'subscribers',
    'confirmation_templates',
    'segments',
    'email_servers',
    'api_tokens',
    'channels',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
};
