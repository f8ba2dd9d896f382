import type { ImportedSubscriber, SubscriberImporter } from '@mailcast/core';
import type { Knex } from 'knex';

// The event's subscribed_at as JavaScript's toISOString writes it (the spec's data shape).
const ISO_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';

/**
 * One statement per batch: unnest the batch, upsert on (channel_id, email), and write the
 * outbox events from the upsert's RETURNING, so rows and events commit together.
 *
 * On an existing subscriber: names and IP are replaced only by non-empty cells, tags are added
 * (never removed), custom_data keys are merged in; source, subscribed_at, is_active,
 * unsubscribed_at and confirmation are kept, so an import never resubscribes anyone. A redacted
 * subscriber is never touched. A row that would change nothing is not updated (no event).
 */
const UPSERT = `
WITH input AS (
  SELECT * FROM unnest(CAST(:emails AS text[]), CAST(:firstNames AS text[]), CAST(:lastNames AS text[]),
                       CAST(:ips AS text[]), CAST(:subscribedAts AS timestamptz[]), CAST(:tags AS jsonb[]),
                       CAST(:customData AS jsonb[]))
    AS i(email, first_name, last_name, ip_address, subscribed_at, tags, custom_data)
),
upserted AS (
  INSERT INTO subscribers AS s (channel_id, email, first_name, last_name, ip_address, source, subscribed_at,
                                tags, custom_data, created_at, updated_at)
  SELECT CAST(:channelId AS bigint), i.email, i.first_name, i.last_name, i.ip_address, 'import',
         coalesce(i.subscribed_at, CAST(:now AS timestamptz)),
         ARRAY(SELECT jsonb_array_elements_text(i.tags)), i.custom_data, CAST(:now AS timestamptz), CAST(:now AS timestamptz)
    FROM input i
  ON CONFLICT (channel_id, email) DO UPDATE SET
    first_name = coalesce(EXCLUDED.first_name, s.first_name),
    last_name = coalesce(EXCLUDED.last_name, s.last_name),
    ip_address = coalesce(EXCLUDED.ip_address, s.ip_address),
    tags = s.tags || ARRAY(SELECT t FROM unnest(EXCLUDED.tags) AS t WHERE t <> ALL (s.tags)),
    custom_data = s.custom_data || EXCLUDED.custom_data,
    updated_at = EXCLUDED.updated_at
  WHERE s.redacted_at IS NULL
    AND (coalesce(EXCLUDED.first_name, s.first_name), coalesce(EXCLUDED.last_name, s.last_name),
         coalesce(EXCLUDED.ip_address, s.ip_address), NOT (EXCLUDED.tags <@ s.tags), s.custom_data || EXCLUDED.custom_data)
        IS DISTINCT FROM (s.first_name, s.last_name, s.ip_address, false, s.custom_data)
  RETURNING s.*, (s.xmax = 0) AS created
),
recorded AS (
  INSERT INTO events (channel_id, type, data, created_at)
  SELECT u.channel_id, CASE WHEN u.created THEN 'subscriber.created' ELSE 'subscriber.updated' END,
         jsonb_build_object(
           'subscriber_id', u.id, 'email', u.email, 'first_name', u.first_name, 'last_name', u.last_name,
           'subscribed_at', to_char(u.subscribed_at AT TIME ZONE 'UTC', CAST(:isoFormat AS text)),
           'unsubscribed_at', to_char(u.unsubscribed_at AT TIME ZONE 'UTC', CAST(:isoFormat AS text)),
           'is_active', u.is_active, 'custom_data', u.custom_data, 'source', u.source),
         CAST(:now AS timestamptz)
    FROM upserted u
   ORDER BY u.id
)
SELECT count(*) FILTER (WHERE created) AS created, count(*) FILTER (WHERE NOT created) AS updated FROM upserted`;

export class PgSubscriberImporter implements SubscriberImporter {
  constructor(private readonly db: Knex) {}

  async upsertBatch(channelId: number, rows: readonly ImportedSubscriber[], now: Date) {
    if (rows.length === 0) return { created: 0, updated: 0, unchanged: 0 };
    const result = await this.db.raw<{ rows: { created: string; updated: string }[] }>(UPSERT, {
      channelId,
      now,
      isoFormat: ISO_FORMAT,
      emails: rows.map((r) => r.email),
      firstNames: rows.map((r) => r.firstName),
      lastNames: rows.map((r) => r.lastName),
      ips: rows.map((r) => r.ipAddress),
      subscribedAts: rows.map((r) => r.subscribedAt),
      tags: rows.map((r) => JSON.stringify(r.tags)),
      customData: rows.map((r) => JSON.stringify(r.customData)),
    });
    const created = Number(result.rows[0]?.created ?? 0);
    const updated = Number(result.rows[0]?.updated ?? 0);
    return { created, updated, unchanged: rows.length - created - updated };
  }
}
