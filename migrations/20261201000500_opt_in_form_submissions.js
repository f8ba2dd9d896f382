// @ts-check
/**
 * What a form submission leaves behind besides the subscriber (docs/opt-in-forms.md, "Submission
 * processing").
 *
 * `opt_in_form_pending_actions`: under double opt-in, what the form does once the address is
 * confirmed (its tags, sequences and welcome email), one row per form and subscriber, taken by
 * the confirmation in its own transaction. The row keeps what the form said at submission, so an
 * edit of the form after the visitor signed up does not change what they signed up for.
 *
 * `opt_in_form_welcomes`: the welcome email of a form goes to a subscriber once; the primary key
 * decides, so concurrent submissions cannot send two.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    CREATE TABLE opt_in_form_pending_actions (
      form_id bigint NOT NULL REFERENCES opt_in_forms (id) ON DELETE CASCADE,
      subscriber_id bigint NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
      tags text[] NOT NULL DEFAULT '{}',
      sequence_ids bigint[] NOT NULL DEFAULT '{}',
      send_welcome_email boolean NOT NULL DEFAULT false,
      welcome_email_template_id bigint,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (form_id, subscriber_id)
    )`);
  // A confirmation looks up its subscriber's rows.
  await knex.raw('CREATE INDEX opt_in_form_pending_actions_subscriber ON opt_in_form_pending_actions (subscriber_id)');
  await knex.raw(`
    CREATE TABLE opt_in_form_welcomes (
      form_id bigint NOT NULL REFERENCES opt_in_forms (id) ON DELETE CASCADE,
      subscriber_id bigint NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
      transactional_id bigint REFERENCES transactionals (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (form_id, subscriber_id)
    )`);
  await knex.raw('CREATE INDEX opt_in_form_welcomes_subscriber ON opt_in_form_welcomes (subscriber_id)');
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('DROP TABLE opt_in_form_welcomes, opt_in_form_pending_actions');
};
