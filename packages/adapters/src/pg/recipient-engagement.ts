import type { ClickContext, ClickMark } from '@mailcast/core';
import type { Knex } from 'knex';

/**
 * The recipient row's side of a tracked open or click (docs/engagement.md): the 60 s guard that
 * counts a repeat once, and for a click the classification's context read in the same statement.
 */

/** An open counts unless one was recorded after :windowStart (docs/security.md "Public routes"). */
const MARK_OPENED = `UPDATE broadcast_recipients SET opened_at = COALESCE(opened_at, :at), last_opened_at = :at
  WHERE id = :id AND (last_opened_at IS NULL OR last_opened_at <= :windowStart) RETURNING id`;
/** A click counts unless the same link's was recorded after :windowStart. */
const MARK_CLICKED = `UPDATE broadcast_recipients SET clicked_at = COALESCE(clicked_at, :at), last_clicked_at = :at, last_clicked_link_id = :link
  WHERE id = :id AND (last_clicked_at IS NULL OR last_clicked_at <= :windowStart OR last_clicked_link_id IS DISTINCT FROM :link) RETURNING id`;

export async function markEngaged(db: Knex, recipientId: number, kind: 'opened' | 'clicked', at: Date, windowStart: Date, linkId?: number): Promise<boolean> {
  // One statement decides, so two loads at once cannot both count (migration 2026112502000001).
  const sql = kind === 'opened' ? MARK_OPENED : MARK_CLICKED;
  const result = await db.raw(sql, { at, id: recipientId, windowStart, link: linkId ?? null });
  return (result.rows as unknown[]).length > 0;
}

export async function markClicked(db: Knex, click: ClickMark): Promise<ClickContext | null> {
  // The caller holds the row's lock (findTracked forUpdate), so this statement's snapshot has
  // every click committed before it. email_events_recipient (broadcast_id, type,
  // recipient_id) finds one recipient's clicks. No row: a repeat inside the window.
  const { rows } = await db.raw<{ rows: Array<{ links: number; id: number | null; link_id: number; occurred_at: Date; machine: boolean }> }>(
    `WITH marked AS (${MARK_CLICKED})
     SELECT (SELECT count(*)::int FROM broadcast_links WHERE broadcast_id = :broadcastId) AS links,
            e.id, e.link_id, e.occurred_at, COALESCE(e.machine, false) AS machine
       FROM marked
       LEFT JOIN email_events e
         ON e.broadcast_id = :broadcastId AND e.type = 'clicked' AND e.recipient_id = :id
        AND e.occurred_at >= :since AND e.link_id IS NOT NULL
      ORDER BY e.occurred_at, e.id`,
    { at: click.at, id: click.recipientId, windowStart: click.windowStart, link: click.linkId, broadcastId: click.broadcastId, since: click.contextSince },
  );
  if (rows.length === 0) return null;
  return {
    linkCount: rows[0]!.links,
    earlierClicks: rows.filter((r) => r.id !== null).map((r) => ({ id: r.id!, linkId: r.link_id, at: r.occurred_at, machine: r.machine })),
  };
}
