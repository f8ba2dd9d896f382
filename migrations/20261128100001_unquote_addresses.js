// @ts-check
/**
 * Rows stored before addresses took one form (docs/subscribers.md, "One form of an address") may
 * hold a quoted local part, `"blocked"@example.com`, which equality never matched against the
 * suppression `blocked@example.com`. This rewrites those whose quotes may be removed, as
 * canonicalEmail now does on the way in:
 * - suppressions: the unquoted entry is added (an existing one is kept) and the quoted one goes;
 * - subscribers: the row takes the unquoted address; when the channel already has a subscriber
 *   with it, the quoted row is the same mailbox twice and is switched off (is_active false), so
 *   the mailbox is neither sent to twice nor past a suppression of its one address;
 * - transactionals not yet sent (queued, awaiting confirmation) take the unquoted `to`, which the
 *   send checks against the lists again. Sent ones keep the address they went to.
 * A quoted local part that needs its quotes is left as it is (nothing to map it to).
 *
 * The rule is repeated here rather than imported: a migration must keep meaning what it meant
 * when it ran, whatever the domain's code becomes.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  const atext = "[a-z0-9!#$%&'*+/=?^_`{|}~-]|[^\\x00-\\x7f]";
  const quotedDotAtom = new RegExp(`^"((?:${atext})+(?:\\.(?:${atext})+)*)"(@[^@]+)$`, 'iu');
  /** @param {string} email */
  const unquoted = (email) => {
    const match = quotedDotAtom.exec(email);
    return match === null ? null : `${match[1]}${match[2]}`;
  };

  const suppressions = await knex('suppressions').where('email', 'like', '"%').select('id', 'channel_id', 'email', 'reason', 'created_at');
  for (const row of suppressions) {
    const email = unquoted(row.email);
    if (email === null) continue;
    await knex.raw(
      'INSERT INTO suppressions (channel_id, email, reason, created_at) VALUES (?, ?, ?, ?) ON CONFLICT ON CONSTRAINT suppressions_unique DO NOTHING',
      [row.channel_id, email, row.reason, row.created_at],
    );
    await knex('suppressions').where({ id: row.id }).delete();
  }

  const subscribers = await knex('subscribers').where('email', 'like', '"%').select('id', 'channel_id', 'email');
  for (const row of subscribers) {
    const email = unquoted(row.email);
    if (email === null) continue;
    const twin = await knex('subscribers').where({ channel_id: row.channel_id, email }).first('id');
    if (twin === undefined) await knex('subscribers').where({ id: row.id }).update({ email });
    else await knex('subscribers').where({ id: row.id }).update({ is_active: false });
  }

  const pending = await knex('transactionals').whereIn('status', ['queued', 'awaiting_confirmation']).where('to_email', 'like', '"%').select('id', 'to_email');
  for (const row of pending) {
    const to = unquoted(row.to_email);
    if (to !== null) await knex('transactionals').where({ id: row.id }).update({ to_email: to });
  }
};

/** Nothing to undo: the unquoted form names the same mailbox. */
exports.down = async function down() {};
