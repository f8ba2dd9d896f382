import type { OptInFormCounters, PublicFormBlock, PublicFormRecord, PublicOptInForms } from '@mailcast/core';
import type { Knex } from 'knex';
import { randomInt } from 'node:crypto';

/** Shards of opt_in_form_daily_statistics a count goes to (docs/opt-in-forms.md, "Storage"). */
export const FORM_STATISTICS_SHARDS = 8;

interface FormRow {
  id: string | number;
  channel_id: string | number;
  identifier: string;
  enabled: boolean;
  widget_type: string;
  parent_form_id: string | number | null;
  variant_weight: number;
  allowed_embedding_domains: string[];
  theme_settings: Record<string, unknown>;
  security_settings: Record<string, unknown>;
  trigger_settings: Record<string, unknown>;
  widget_settings: Record<string, unknown>;
}

interface BlockRow {
  form_id: string | number;
  placement: 'form' | 'post_submission';
  block_type: string;
  position: number;
  text_value: string | null;
  input_field_label: string | null;
  input_field_placeholder: string | null;
  input_field_value_type: string | null;
  custom_field_key: string | null;
  required: boolean;
  multiline: boolean;
  options: unknown;
  checkbox_label: string | null;
  topic_id: string | number | null;
  image_url: string | null;
  button_label: string | null;
}

const FORM_COLUMNS = [
  'id',
  'channel_id',
  'identifier',
  'enabled',
  'widget_type',
  'parent_form_id',
  'variant_weight',
  'allowed_embedding_domains',
  'theme_settings',
  'security_settings',
  'trigger_settings',
  'widget_settings',
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function block(row: BlockRow): PublicFormBlock {
  return {
    blockType: row.block_type,
    position: row.position,
    textValue: row.text_value,
    inputFieldLabel: row.input_field_label,
    inputFieldPlaceholder: row.input_field_placeholder,
    inputFieldValueType: row.input_field_value_type,
    customFieldKey: row.custom_field_key,
    required: row.required,
    multiline: row.multiline,
    options: row.options,
    checkboxLabel: row.checkbox_label,
    topicId: row.topic_id === null ? null : Number(row.topic_id),
    imageUrl: row.image_url,
    buttonLabel: row.button_label,
  };
}

/** The public side's reads of opt_in_forms and its blocks: two indexed queries per look-up. */
export class PgPublicOptInForms implements PublicOptInForms {
  constructor(private readonly db: Knex) {}

  async findByIdentifier(identifier: string): Promise<PublicFormRecord | null> {
    // Not a UUID: no such form, and no cast error from PostgreSQL.
    if (!UUID.test(identifier)) return null;
    const rows: FormRow[] = await this.db('opt_in_forms').select(FORM_COLUMNS).where({ identifier: identifier.toLowerCase() });
    return (await this.withBlocks(rows))[0] ?? null;
  }

  async variantsOf(mainFormId: number): Promise<PublicFormRecord[]> {
    const rows: FormRow[] = await this.db('opt_in_forms').select(FORM_COLUMNS).where({ parent_form_id: mainFormId }).orderBy(['created_at', 'id']);
    return this.withBlocks(rows);
  }

  private async withBlocks(rows: FormRow[]): Promise<PublicFormRecord[]> {
    if (rows.length === 0) return [];
    const blocks = await this.db<BlockRow>('opt_in_form_blocks')
      .whereIn(
        'form_id',
        rows.map((r) => r.id),
      )
      .orderBy(['form_id', 'placement', 'position', 'id']);
    return rows.map((row) => {
      const own = blocks.filter((b) => Number(b.form_id) === Number(row.id));
      return {
        id: Number(row.id),
        channelId: Number(row.channel_id),
        identifier: row.identifier,
        enabled: row.enabled,
        widgetType: row.widget_type,
        parentFormId: row.parent_form_id === null ? null : Number(row.parent_form_id),
        variantWeight: row.variant_weight,
        allowedEmbeddingDomains: row.allowed_embedding_domains,
        themeSettings: row.theme_settings,
        securitySettings: row.security_settings,
        triggerSettings: row.trigger_settings,
        widgetSettings: row.widget_settings,
        blocks: own.filter((b) => b.placement === 'form').map(block),
        postSubmissionBlocks: own.filter((b) => b.placement === 'post_submission').map(block),
      };
    });
  }
}

/**
 * Counts into one of FORM_STATISTICS_SHARDS rows per form and day, chosen at random, so
 * concurrent counts of one form rarely wait on one row lock; readers sum the shards.
 */
export class PgOptInFormCounters implements OptInFormCounters {
  constructor(private readonly db: Knex) {}

  async recordView(formId: number, visitor: string, day: string): Promise<{ unique: boolean }> {
    // One statement: the visitor row decides uniqueness (its primary key), and the counter row
    // gains a view, plus a unique view when that insert took place.
    const { rows } = await this.db.raw<{ rows: Array<{ unique_views: number }> }>(
      `WITH seen AS (
         INSERT INTO opt_in_form_visitors (form_id, day, visitor) VALUES (?, ?, ?)
         ON CONFLICT DO NOTHING RETURNING 1
       )
       INSERT INTO opt_in_form_daily_statistics AS s (form_id, day, shard, views, unique_views)
       VALUES (?, ?, ?, 1, (SELECT count(*) FROM seen))
       ON CONFLICT (form_id, day, shard) DO UPDATE
         SET views = s.views + 1, unique_views = s.unique_views + excluded.unique_views
       RETURNING (SELECT count(*) FROM seen)::int AS unique_views`,
      [formId, day, visitor, formId, day, randomInt(FORM_STATISTICS_SHARDS)],
    );
    return { unique: Number(rows[0]?.unique_views ?? 0) > 0 };
  }

  async recordSubmission(formId: number, day: string): Promise<void> {
    await this.db.raw(
      `INSERT INTO opt_in_form_daily_statistics AS s (form_id, day, shard, submissions) VALUES (?, ?, ?, 1)
       ON CONFLICT (form_id, day, shard) DO UPDATE SET submissions = s.submissions + 1`,
      [formId, day, randomInt(FORM_STATISTICS_SHARDS)],
    );
  }
}
