import { conversionRate, settingsToJson, type FormAnalytics, type FormFigures, type OptInFormBlock, type OptInFormView } from '@mailcast/core';

/** A block as the API shows it (docs/opt-in-forms.md "Blocks"). */
export function presentBlock(b: OptInFormBlock) {
  return {
    id: b.id,
    block_type: b.blockType,
    position: b.position,
    text_value: b.textValue,
    input_field_label: b.inputFieldLabel,
    input_field_placeholder: b.inputFieldPlaceholder,
    input_field_value_type: b.inputFieldValueType,
    custom_field_key: b.customFieldKey,
    required: b.required,
    multiline: b.multiline,
    options: b.options,
    checkbox_label: b.checkboxLabel,
    topic_id: b.topicId,
    image_url: b.imageUrl,
    button_label: b.buttonLabel,
    custom_css: b.customCss,
    created_at: b.createdAt.toISOString(),
    updated_at: b.updatedAt.toISOString(),
  };
}

/** A form with its figures; `embed_url` under PUBLIC_URL (docs/opt-in-forms.md "Form JSON"). */
export function presentForm({ form: f, counters, variantsCount }: OptInFormView, publicUrl: string) {
  return {
    id: f.id,
    identifier: f.identifier,
    label: f.label,
    form_type: f.formType,
    widget_type: f.widgetType,
    enabled: f.enabled,
    allowed_embedding_domains: f.allowedEmbeddingDomains,
    ...settingsToJson(f),
    confirmation_email_template_id: f.confirmationEmailTemplateId,
    welcome_email_template_id: f.welcomeEmailTemplateId,
    confirmation_redirect_url: f.confirmationRedirectUrl,
    include_unsubscribe_link_in_confirmation: f.includeUnsubscribeLinkInConfirmation,
    analytics: {
      views_count: counters.views,
      unique_views_count: counters.uniqueViews,
      submissions_count: counters.submissions,
      conversion_rate: conversionRate(counters.submissions, counters.uniqueViews),
    },
    is_variant: f.parentFormId !== null,
    parent_form_id: f.parentFormId,
    variant_name: f.variantName,
    variant_weight: f.variantWeight,
    variants_count: variantsCount,
    opt_in_form_blocks: f.formBlocks.map(presentBlock),
    opt_in_post_submission_blocks: f.postSubmissionBlocks.map(presentBlock),
    embed_url: `${publicUrl}/f/${f.identifier}/embed.js`,
    created_at: f.createdAt.toISOString(),
    updated_at: f.updatedAt.toISOString(),
  };
}

const figures = (f: FormFigures) => ({ views: f.views, unique_views: f.uniqueViews, submissions: f.submissions, conversion_rate: f.conversionRate });

export function presentAnalytics(a: FormAnalytics) {
  return {
    form_id: a.formId,
    start_date: a.startDate,
    end_date: a.endDate,
    totals: figures(a.totals),
    daily: a.daily.map((d) => ({ date: d.date, ...figures(d) })),
    variants: a.variants.map((v) => ({ form_id: v.formId, variant_name: v.variantName, variant_weight: v.variantWeight, ...figures(v) })),
  };
}
