/** What a template is for (docs/templates.md). */
export type TemplatePurpose = 'broadcast' | 'confirmation';

export interface Template {
  id: number;
  channelId: number;
  label: string;
  subject: string | null;
  preheader: string | null;
  body: string | null;
  htmlBody: string | null;
  purpose: TemplatePurpose;
  /** The channel's default confirmation template (at most one per channel). */
  defaultConfirmation: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export type TemplateFields = Omit<Template, 'id' | 'channelId' | 'createdAt' | 'updatedAt'>;
