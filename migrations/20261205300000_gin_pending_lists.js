// @ts-check
/**
 * The subscribers' GIN indexes keep a short pending list (docs/write-path.md, "GIN pending
 * lists"). A GIN index takes new entries into a pending list and merges the list into the index
 * when it outgrows `gin_pending_list_limit` (4 MB by default), inside the insert that crossed
 * it: that one statement is then many times slower than the others, and every sign-up or create
 * batched into it waits. At 256 kB the merges are sixteen times as frequent and each a sixteenth of the work, so
 * no insert pays for a long one; the index stays batched (fastupdate stays on: without it every
 * insert updates each index at once, and inserts were slower overall).
 */
const INDEXES = ['subscribers_email_trgm', 'subscribers_tags', 'subscribers_custom_data'];

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  for (const index of INDEXES) await knex.raw(`ALTER INDEX ${index} SET (gin_pending_list_limit = 256)`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  for (const index of INDEXES) await knex.raw(`ALTER INDEX ${index} RESET (gin_pending_list_limit)`);
};
