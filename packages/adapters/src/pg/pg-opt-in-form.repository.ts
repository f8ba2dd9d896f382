import {
  groupsToJson,
  settingsFromJson,
  type BlockPlacement,
  type NewOptInForm,
  type OptInForm,
  type OptInFormBlock,
  type OptInFormBlockFields,
  type OptInFormBlockWrite,
  type OptInFormChanges,
  type OptInFormCounters,
  type OptInFormDailyCounters,
  type OptInFormListFilter,
  type OptInFormRepository,
  type Page,
} from '@mailcast/core';
import type { Knex } from 'knex';

interface FormRow {
  id: number;
  channel_id: number;
  identifier: string;
  label: string;
  form_type: OptInForm['formType'];
  widget_type: OptInForm['widgetType'];
  enabled: boolean;
  allowed_embedding_domains: string[];
  theme_settings: unknown;
  automation_settings: unknown;
  security_settings: unknown;
  trigger_settings: unknown;
  widget_settings: unknown;
  confirmation_email_template_id: number | null;
  welcome_email_template_id: number | null;
  confirmation_redirect_url: string | null;
  include_unsubscribe_link_in_confirmation: boolean;
  parent_form_id: number | null;
  variant_name: string | null;
  variant_weight: number;
  created_at: Date;
  updated_at: Date;
}

interface BlockRow {
  id: number;
  form_id: number;
  placement: BlockPlacement;
  block_type: OptInFormBlock['blockType'];
  position: number;
  text_value: string | null;
  input_field_label: string | null;
  input_field_placeholder: string | null;
  input_field_value_type: OptInFormBlock['inputFieldValueType'];
  custom_field_key: string | null;
  required: boolean;
  multiline: boolean;
  options: unknown;
  checkbox_label: string | null;
  topic_id: number | null;
  image_url: string | null;
  button_label: string | null;
  custom_css: string | null;
  created_at: Date;
  updated_at: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const nullableId = (v: number | string | null) => (v === null ? null : Number(v));

const toBlock = (row: BlockRow): OptInFormBlock => ({
  id: Number(row.id),
  formId: Number(row.form_id),
  placement: row.placement,
  blockType: row.block_type,
  position: row.position,
  textValue: row.text_value,
  inputFieldLabel: row.input_field_label,
  inputFieldPlaceholder: row.input_field_placeholder,
  inputFieldValueType: row.input_field_value_type,
  customFieldKey: row.custom_field_key,
  required: row.required,
  multiline: row.multiline,
  options: Array.isArray(row.options) ? row.options.map(String) : [],
  checkboxLabel: row.checkbox_label,
  topicId: nullableId(row.topic_id),
  imageUrl: row.image_url,
  buttonLabel: row.button_label,
  customCss: row.custom_css,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const blockColumns = (b: OptInFormBlockFields) => ({
  block_type: b.blockType,
  position: b.position,
  text_value: b.textValue,
  input_field_label: b.inputFieldLabel,
  input_field_placeholder: b.inputFieldPlaceholder,
  input_field_value_type: b.inputFieldValueType,
  custom_field_key: b.customFieldKey,
  required: b.required,
  multiline: b.multiline,
  options: JSON.stringify(b.options),
  checkbox_label: b.checkboxLabel,
  topic_id: b.topicId,
  image_url: b.imageUrl,
  button_label: b.buttonLabel,
  custom_css: b.customCss,
});

const toForm = (row: FormRow, blocks: readonly OptInFormBlock[]): OptInForm => ({
  id: Number(row.id),
  channelId: Number(row.channel_id),
  identifier: row.identifier,
  label: row.label,
  formType: row.form_type,
  widgetType: row.widget_type,
  enabled: row.enabled,
  allowedEmbeddingDomains: row.allowed_embedding_domains,
  ...settingsFromJson(row),
  confirmationEmailTemplateId: nullableId(row.confirmation_email_template_id),
  welcomeEmailTemplateId: nullableId(row.welcome_email_template_id),
  confirmationRedirectUrl: row.confirmation_redirect_url,
  includeUnsubscribeLinkInConfirmation: row.include_unsubscribe_link_in_confirmation,
  parentFormId: nullableId(row.parent_form_id),
  variantName: row.variant_name,
  variantWeight: row.variant_weight,
  formBlocks: blocks.filter((b) => b.placement === 'form'),
  postSubmissionBlocks: blocks.filter((b) => b.placement === 'post_submission'),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Settings groups are written whole (snake_case, defaults applied), so a reader sees every key. */
function formColumns(c: OptInFormChanges): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (c.label !== undefined) out.label = c.label;
  if (c.formType !== undefined) out.form_type = c.formType;
  if (c.widgetType !== undefined) out.widget_type = c.widgetType;
  if (c.enabled !== undefined) out.enabled = c.enabled;
  if (c.allowedEmbeddingDomains !== undefined) out.allowed_embedding_domains = c.allowedEmbeddingDomains;
  if (c.confirmationEmailTemplateId !== undefined) out.confirmation_email_template_id = c.confirmationEmailTemplateId;
  if (c.welcomeEmailTemplateId !== undefined) out.welcome_email_template_id = c.welcomeEmailTemplateId;
  if (c.confirmationRedirectUrl !== undefined) out.confirmation_redirect_url = c.confirmationRedirectUrl;
  if (c.includeUnsubscribeLinkInConfirmation !== undefined) out.include_unsubscribe_link_in_confirmation = c.includeUnsubscribeLinkInConfirmation;
  if (c.variantName !== undefined) out.variant_name = c.variantName;
  if (c.variantWeight !== undefined) out.variant_weight = c.variantWeight;
  for (const [group, value] of Object.entries(groupsToJson(c))) out[group] = JSON.stringify(value);
  return out;
}

const sum = (column: string) => `coalesce(sum(${column}), 0)::bigint AS ${column}`;

export class PgOptInFormRepository implements OptInFormRepository {
  constructor(private readonly db: Knex) {}

  /** The forms of the rows with their blocks, in the rows' order. */
  private async withBlocks(rows: readonly FormRow[]): Promise<OptInForm[]> {
    if (rows.length === 0) return [];
    const blockRows = (await this.db('opt_in_form_blocks')
      .whereIn(
        'form_id',
        rows.map((r) => r.id),
      )
      .orderBy(['form_id', 'placement', 'position', 'id'])
      .select('*')) as BlockRow[];
    const byForm = new Map<number, OptInFormBlock[]>();
    for (const b of blockRows) {
      const block = toBlock(b);
      const list = byForm.get(block.formId) ?? [];
      list.push(block);
      byForm.set(block.formId, list);
    }
    return rows.map((r) => toForm(r, byForm.get(Number(r.id)) ?? []));
  }

  async findByIdentifier(identifier: string): Promise<OptInForm | null> {
    if (!UUID.test(identifier)) return null;
    const row = (await this.db('opt_in_forms').where({ identifier: identifier.toLowerCase() }).first('*')) as FormRow | undefined;
    return row ? ((await this.withBlocks([row]))[0] ?? null) : null;
  }

  async findById(channelId: number, id: number, options: { forUpdate?: boolean } = {}): Promise<OptInForm | null> {
    const query = this.db('opt_in_forms').where({ channel_id: channelId, id }).first('*');
    const row = (await (options.forUpdate ? query.forUpdate() : query)) as FormRow | undefined;
    return row ? ((await this.withBlocks([row]))[0] ?? null) : null;
  }

  async variantsOf(formId: number): Promise<OptInForm[]> {
    const rows = (await this.db('opt_in_forms').where({ parent_form_id: formId }).orderBy(['created_at', 'id']).select('*')) as FormRow[];
    return this.withBlocks(rows);
  }

  async list(channelId: number, filter: OptInFormListFilter, page: Page): Promise<{ items: OptInForm[]; total: number }> {
    const base = () => {
      const q = this.db('opt_in_forms').where({ channel_id: channelId }).whereNull('parent_form_id');
      // The label filter is a plain substring: LIKE's own wildcards in it are matched literally.
      if (filter.label !== undefined && filter.label !== '') q.whereRaw('strpos(lower(label), lower(?)) > 0', [filter.label]);
      if (filter.widgetType !== undefined) q.where({ widget_type: filter.widgetType });
      if (filter.enabled !== undefined) q.where({ enabled: filter.enabled });
      return q;
    };
    const rows = (await base().orderBy(['created_at', 'id']).limit(page.limit).offset(page.offset).select('*')) as FormRow[];
    const count = (await base().count<{ count: string }[]>({ count: '*' }).first()) as { count: string } | undefined;
    return { items: await this.withBlocks(rows), total: Number(count?.count ?? 0) };
  }

  async create(channelId: number, form: NewOptInForm, now: Date): Promise<OptInForm> {
    const [row] = (await this.db('opt_in_forms')
      .insert({
        channel_id: channelId,
        identifier: form.identifier,
        parent_form_id: form.parentFormId,
        ...formColumns({ ...form, variantName: undefined }),
        variant_name: form.variantName,
        variant_weight: form.variantWeight,
        created_at: now,
        updated_at: now,
      })
      .returning('*')) as FormRow[];
    const id = Number(row!.id);
    await this.saveBlocks(id, 'form', form.formBlocks, now);
    await this.saveBlocks(id, 'post_submission', form.postSubmissionBlocks, now);
    return (await this.findById(channelId, id))!;
  }

  async update(channelId: number, id: number, changes: OptInFormChanges, now: Date): Promise<OptInForm> {
    await this.db('opt_in_forms')
      .where({ channel_id: channelId, id })
      .update({ ...formColumns(changes), updated_at: now });
    return (await this.findById(channelId, id))!;
  }

  async saveBlocks(formId: number, placement: BlockPlacement, blocks: readonly OptInFormBlockWrite[], now: Date): Promise<void> {
    const kept = blocks.filter((b) => b.id !== undefined).map((b) => b.id!);
    await this.db('opt_in_form_blocks').where({ form_id: formId, placement }).whereNotIn('id', kept).delete();
    for (const block of blocks) {
      if (block.id !== undefined) {
        await this.db('opt_in_form_blocks')
          .where({ form_id: formId, placement, id: block.id })
          .update({ ...blockColumns(block), updated_at: now });
      }
    }
    const added = blocks.filter((b) => b.id === undefined);
    if (added.length > 0) {
      await this.db('opt_in_form_blocks').insert(added.map((b) => ({ form_id: formId, placement, ...blockColumns(b), created_at: now, updated_at: now })));
    }
  }

  async delete(channelId: number, id: number): Promise<void> {
    // Variants, blocks and counters go by their foreign keys' ON DELETE CASCADE.
    await this.db('opt_in_forms').where({ channel_id: channelId, id }).delete();
  }

  async variantCounts(formIds: readonly number[]): Promise<Map<number, number>> {
    const counts = new Map<number, number>(formIds.map((id) => [id, 0]));
    if (formIds.length === 0) return counts;
    const rows = (await this.db('opt_in_forms')
      .whereIn('parent_form_id', [...formIds])
      .groupBy('parent_form_id')
      .select('parent_form_id', this.db.raw('count(*)::int AS count'))) as Array<{ parent_form_id: string; count: number }>;
    for (const r of rows) counts.set(Number(r.parent_form_id), r.count);
    return counts;
  }

  async counters(formIds: readonly number[]): Promise<Map<number, OptInFormCounters>> {
    const counters = new Map<number, OptInFormCounters>(formIds.map((id) => [id, { views: 0, uniqueViews: 0, submissions: 0 }]));
    if (formIds.length === 0) return counters;
    const { rows } = await this.db.raw<{ rows: Array<{ form_id: string; views: string; unique_views: string; submissions: string }> }>(
      `SELECT form_id, ${sum('views')}, ${sum('unique_views')}, ${sum('submissions')}
         FROM opt_in_form_daily_statistics WHERE form_id = ANY (?::bigint[]) GROUP BY form_id`,
      [[...formIds]],
    );
    for (const r of rows) counters.set(Number(r.form_id), { views: Number(r.views), uniqueViews: Number(r.unique_views), submissions: Number(r.submissions) });
    return counters;
  }

  async dailyCounters(formIds: readonly number[], from: string, to: string): Promise<OptInFormDailyCounters[]> {
    if (formIds.length === 0) return [];
    const { rows } = await this.db.raw<{ rows: Array<{ form_id: string; day: string; views: string; unique_views: string; submissions: string }> }>(
      `SELECT form_id, to_char(day, 'YYYY-MM-DD') AS day, ${sum('views')}, ${sum('unique_views')}, ${sum('submissions')}
         FROM opt_in_form_daily_statistics
        WHERE form_id = ANY (?::bigint[]) AND day BETWEEN ?::date AND ?::date
        GROUP BY form_id, day ORDER BY day, form_id`,
      [[...formIds], from, to],
    );
    return rows.map((r) => ({
      formId: Number(r.form_id),
      day: r.day,
      views: Number(r.views),
      uniqueViews: Number(r.unique_views),
      submissions: Number(r.submissions),
    }));
  }

  async enrollingInto(channelId: number, sequenceId: number): Promise<number[]> {
    const rows = (await this.db('opt_in_forms')
      .where({ channel_id: channelId })
      .whereRaw(`automation_settings -> 'sequence_ids' @> ?::jsonb`, [JSON.stringify([sequenceId])])
      .orderBy('id')
      .select('id')) as Array<{ id: string }>;
    return rows.map((r) => Number(r.id));
  }

  async existingTopics(channelId: number, ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = (await this.db('topics')
      .where({ channel_id: channelId })
      .whereIn('id', [...ids])
      .select('id')) as Array<{ id: string }>;
    return rows.map((r) => Number(r.id));
  }
}
