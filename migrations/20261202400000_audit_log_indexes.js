// @ts-check
/**
 * The audit log's filters (docs/teams.md, "Audit log"): who (a user, a token) and what (the
 * action), each newest first. The user and token indexes also keep deleting a user or token
 * (ON DELETE SET NULL on audit_log) from scanning the whole log.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.raw(`
    CREATE INDEX audit_log_user ON audit_log (user_id, occurred_at) WHERE user_id IS NOT NULL;
    CREATE INDEX audit_log_token ON audit_log (token_id, occurred_at) WHERE token_id IS NOT NULL;
    CREATE INDEX audit_log_action ON audit_log (action, occurred_at);
  `);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw(`DROP INDEX audit_log_user, audit_log_token, audit_log_action`);
};
