import type { Template } from '../ports';

/** A template as the API answers it (and the admin CLI prints it): snake_case, ISO instants. */
export function templateJson(t: Template) {
  return {
    id: t.id,
    label: t.label,
    subject: t.subject,
    preheader: t.preheader,
    body: t.body,
    html_body: t.htmlBody,
    template_purpose: t.purpose,
    default_confirmation: t.defaultConfirmation,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}
