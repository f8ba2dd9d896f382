import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';

export interface FormSeed {
  label?: string;
  widget_type?: string;
  enabled?: boolean;
  allowed_embedding_domains?: string[];
  theme_settings?: Record<string, unknown>;
  security_settings?: Record<string, unknown>;
  automation_settings?: Record<string, unknown>;
  trigger_settings?: Record<string, unknown>;
  parent_form_id?: number;
  variant_name?: string;
  variant_weight?: number;
  blocks?: Array<Record<string, unknown>>;
  post_submission_blocks?: Array<Record<string, unknown>>;
}

/** An email input, first name, a button: the form view most tests need. */
export const SIGN_UP_BLOCKS = [
  { block_type: 'heading', text_value: 'Join the <b>newsletter</b>' },
  {
    block_type: 'input_field',
    input_field_value_type: 'email',
    input_field_label: 'Email address',
    input_field_placeholder: 'you@example.com',
    required: true,
  },
  { block_type: 'input_field', input_field_value_type: 'first_name', input_field_label: 'First name' },
  { block_type: 'button', button_label: 'Subscribe' },
];

/**
 * A form row and its blocks written straight into the tables of migration
 * 20261201000001_topics_and_forms, as the public side reads them.
 */
export async function aForm(db: Knex, channelId: number, seed: FormSeed = {}): Promise<{ id: number; identifier: string }> {
  const now = new Date();
  const identifier = randomUUID();
  const [row] = await db('opt_in_forms')
    .insert({
      channel_id: channelId,
      identifier,
      label: seed.label ?? 'Newsletter',
      widget_type: seed.widget_type ?? 'inline_embed',
      enabled: seed.enabled ?? true,
      allowed_embedding_domains: seed.allowed_embedding_domains ?? [],
      theme_settings: seed.theme_settings ?? {},
      security_settings: seed.security_settings ?? {},
      automation_settings: seed.automation_settings ?? {},
      trigger_settings: seed.trigger_settings ?? {},
      parent_form_id: seed.parent_form_id ?? null,
      variant_name: seed.variant_name ?? (seed.parent_form_id ? 'Variant B' : null),
      variant_weight: seed.variant_weight ?? 50,
      created_at: now,
      updated_at: now,
    })
    .returning('id');
  const id = Number((row as { id: number }).id);
  const blocks = [
    ...(seed.blocks ?? SIGN_UP_BLOCKS).map((b, i) => ({ placement: 'form', position: i, ...b })),
    ...(seed.post_submission_blocks ?? []).map((b, i) => ({ placement: 'post_submission', position: i, ...b })),
  ];
  if (blocks.length > 0) {
    await db('opt_in_form_blocks').insert(
      blocks.map((b) => ({ form_id: id, created_at: now, updated_at: now, ...b, options: JSON.stringify((b as { options?: unknown }).options ?? []) })),
    );
  }
  return { id, identifier };
}

/** The day's counters of a form, summed over the shards. */
export async function formCounts(db: Knex, formId: number): Promise<{ views: number; unique_views: number; submissions: number }> {
  const row = await db('opt_in_form_daily_statistics')
    .where({ form_id: formId })
    .select(
      db.raw('coalesce(sum(views), 0)::int AS views, coalesce(sum(unique_views), 0)::int AS unique_views, coalesce(sum(submissions), 0)::int AS submissions'),
    )
    .first();
  return row as { views: number; unique_views: number; submissions: number };
}
