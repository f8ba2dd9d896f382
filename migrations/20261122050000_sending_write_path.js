// @ts-check
/**
 * The sending pipeline's two hot tables lose what costs every row a lookup and guards nothing
 * the product can break.
 *
 * broadcast_recipients and email_events (with email_event_firsts) are written once or twice per
 * email: a million rows when a broadcast is queued, two events per email sent. Their foreign keys
 * ran a referential check per row (12.5 of the 21 s of one bare INSERT … SELECT of a million
 * recipients, measured), yet the rows they point at are never deleted under them: subscribers
 * are redacted, not deleted; links and channels have no delete operation; a broadcast is deleted
 * only in draft or future_scheduled, before it can have a recipient, a link or an event. And
 * these rows are only ever written from rows read in the same statement or claim. So the keys
 * go, and what they promised is kept by that design (README, "Decisions").
 *
 * broadcast_recipients_status (broadcast_id, status) and broadcast_recipients_subscriber
 * (subscriber_id) served no query on a hot path: the claim reads the claimable partial index, the
 * once-per-broadcast counts read the broadcast's rows through the unique key, and nothing looks
 * recipients up by subscriber. Each was one more index entry for every claim and settlement.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    ALTER TABLE broadcast_recipients
      DROP CONSTRAINT broadcast_recipients_broadcast_id_foreign,
      DROP CONSTRAINT broadcast_recipients_subscriber_id_foreign`);
  await knex.raw(`
    ALTER TABLE email_events
      DROP CONSTRAINT email_events_channel_id_foreign,
      DROP CONSTRAINT email_events_broadcast_id_foreign,
      DROP CONSTRAINT email_events_recipient_id_foreign,
      DROP CONSTRAINT email_events_subscriber_id_foreign,
      DROP CONSTRAINT email_events_link_id_foreign`);
  await knex.raw('ALTER TABLE email_event_firsts DROP CONSTRAINT email_event_firsts_recipient_id_fkey');
  await knex.raw('DROP INDEX broadcast_recipients_status');
  await knex.raw('DROP INDEX broadcast_recipients_subscriber');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('CREATE INDEX broadcast_recipients_subscriber ON broadcast_recipients (subscriber_id)');
  await knex.raw('CREATE INDEX broadcast_recipients_status ON broadcast_recipients (broadcast_id, status)');
  await knex.raw(`
    ALTER TABLE email_event_firsts
      ADD CONSTRAINT email_event_firsts_recipient_id_fkey FOREIGN KEY (recipient_id) REFERENCES broadcast_recipients(id) ON DELETE CASCADE`);
  await knex.raw(`
    ALTER TABLE email_events
      ADD CONSTRAINT email_events_channel_id_foreign FOREIGN KEY (channel_id) REFERENCES channels(id) ON DELETE CASCADE,
      ADD CONSTRAINT email_events_broadcast_id_foreign FOREIGN KEY (broadcast_id) REFERENCES broadcasts(id) ON DELETE CASCADE,
      ADD CONSTRAINT email_events_recipient_id_foreign FOREIGN KEY (recipient_id) REFERENCES broadcast_recipients(id) ON DELETE CASCADE,
      ADD CONSTRAINT email_events_subscriber_id_foreign FOREIGN KEY (subscriber_id) REFERENCES subscribers(id) ON DELETE SET NULL,
      ADD CONSTRAINT email_events_link_id_foreign FOREIGN KEY (link_id) REFERENCES broadcast_links(id) ON DELETE CASCADE`);
  await knex.raw(`
    ALTER TABLE broadcast_recipients
      ADD CONSTRAINT broadcast_recipients_broadcast_id_foreign FOREIGN KEY (broadcast_id) REFERENCES broadcasts(id) ON DELETE CASCADE,
      ADD CONSTRAINT broadcast_recipients_subscriber_id_foreign FOREIGN KEY (subscriber_id) REFERENCES subscribers(id) ON DELETE CASCADE`);
};
