/**
 * An opt-in form (docs/opt-in-forms.md): a main form or one of its variants (a variant is a form
 * row with a parent), its two block lists, its settings with their defaults applied.
 */
export const FORM_TYPES = ['embed', 'web'] as const;
export type FormType = (typeof FORM_TYPES)[number];

export const WIDGET_TYPES = ['inline_embed', 'popup_modal', 'slide_in_panel', 'floating_button', 'sticky_bar', 'full_page'] as const;
export type WidgetType = (typeof WIDGET_TYPES)[number];

export const FORM_TRIGGERS = ['immediate', 'time_delay', 'scroll', 'exit_intent'] as const;
export type FormTrigger = (typeof FORM_TRIGGERS)[number];

/** `always` and `every_visit` mean the same (docs/opt-in-forms.md, "Settings"); `every_visit` is the default. */
export const FORM_FREQUENCIES = ['always', 'every_visit', 'once_per_session', 'once_per_day', 'once_per_week', 'once'] as const;
export type FormFrequency = (typeof FORM_FREQUENCIES)[number];

export const FORM_DEVICES = ['desktop', 'tablet', 'mobile'] as const;
export type FormDevice = (typeof FORM_DEVICES)[number];

export const BLOCK_TYPES = [
  'heading',
  'text',
  'image',
  'input_field',
  'checkbox',
  'dropdown',
  'radio_group',
  'custom_field',
  'topic',
  'button',
  'divider',
  'spacer',
] as const;
export type BlockType = (typeof BLOCK_TYPES)[number];

/** What may follow a sign-up: content only, no inputs. */
export const POST_SUBMISSION_BLOCK_TYPES: readonly BlockType[] = ['heading', 'text', 'image', 'divider', 'spacer'];

export const INPUT_VALUE_TYPES = ['email', 'first_name', 'last_name', 'name', 'custom'] as const;
export type InputValueType = (typeof INPUT_VALUE_TYPES)[number];

export const BLOCK_PLACEMENTS = ['form', 'post_submission'] as const;
export type BlockPlacement = (typeof BLOCK_PLACEMENTS)[number];

export const CUSTOM_FIELD_KEY = /^[a-z][a-z0-9_]*$/;

/** Free-form groups of theme values (colours are hex); their inner keys are the user's. */
export interface ThemeSettings {
  colors: Record<string, unknown>;
  typography: Record<string, unknown>;
  layout: Record<string, unknown>;
  effects: Record<string, unknown>;
  [group: string]: unknown;
}

export interface AutomationSettings {
  tagList: string[];
  sequenceIds: number[];
  doubleOptIn: boolean;
  sendWelcomeEmail: boolean;
}

export interface SecuritySettings {
  honeypot: boolean;
  timeValidation: boolean;
  minSubmitSeconds: number;
  rateLimit: boolean;
  /** Submissions per IP address and form within the window. */
  rateLimitMax: number;
  rateLimitWindowMinutes: number;
  turnstile: boolean;
  turnstileSiteKey: string | null;
}

export interface TriggerSettings {
  trigger: FormTrigger;
  delaySeconds: number;
  scrollPercentage: number;
  frequency: FormFrequency;
  devices: FormDevice[];
}

/** Stored as sent. */
export type WidgetSettings = Record<string, unknown>;

export interface FormSettings {
  themeSettings: ThemeSettings;
  automationSettings: AutomationSettings;
  securitySettings: SecuritySettings;
  triggerSettings: TriggerSettings;
  widgetSettings: WidgetSettings;
}

/** Defaults of every setting (docs/opt-in-forms.md, "Settings"). */
export const OPT_IN_FORM_DEFAULTS: Readonly<FormSettings> = Object.freeze<FormSettings>({
  themeSettings: { colors: {}, typography: {}, layout: {}, effects: {} },
  automationSettings: { tagList: [], sequenceIds: [], doubleOptIn: false, sendWelcomeEmail: false },
  securitySettings: {
    honeypot: true,
    timeValidation: true,
    minSubmitSeconds: 3,
    rateLimit: true,
    rateLimitMax: 5,
    rateLimitWindowMinutes: 60,
    turnstile: false,
    turnstileSiteKey: null,
  },
  triggerSettings: { trigger: 'immediate', delaySeconds: 0, scrollPercentage: 50, frequency: 'every_visit', devices: ['desktop', 'tablet', 'mobile'] },
  widgetSettings: {},
});

export interface OptInFormBlockFields {
  blockType: BlockType;
  position: number;
  textValue: string | null;
  inputFieldLabel: string | null;
  inputFieldPlaceholder: string | null;
  inputFieldValueType: InputValueType | null;
  customFieldKey: string | null;
  required: boolean;
  multiline: boolean;
  /** Choices of a dropdown or radio group. */
  options: string[];
  checkboxLabel: string | null;
  topicId: number | null;
  imageUrl: string | null;
  /** A button's label; `Sign Up` when not given. */
  buttonLabel: string | null;
  customCss: string | null;
}

export interface OptInFormBlock extends OptInFormBlockFields {
  id: number;
  formId: number;
  placement: BlockPlacement;
  createdAt: Date;
  updatedAt: Date;
}

/** A block to write: with `id`, an existing block of the same list updated in place. */
export type OptInFormBlockWrite = OptInFormBlockFields & { id?: number };

export interface OptInFormAttributes extends FormSettings {
  label: string;
  formType: FormType;
  widgetType: WidgetType;
  enabled: boolean;
  /** Hosts allowed to embed the form; empty: any. */
  allowedEmbeddingDomains: string[];
  confirmationEmailTemplateId: number | null;
  welcomeEmailTemplateId: number | null;
  confirmationRedirectUrl: string | null;
  includeUnsubscribeLinkInConfirmation: boolean;
}

export interface OptInForm extends OptInFormAttributes {
  id: number;
  channelId: number;
  identifier: string;
  /** Null for a main form; a variant's main form otherwise. */
  parentFormId: number | null;
  variantName: string | null;
  /** 0..100; a main form's is 50. */
  variantWeight: number;
  /** The form view, by position. */
  formBlocks: OptInFormBlock[];
  /** What replaces the form view after a sign-up, by position. */
  postSubmissionBlocks: OptInFormBlock[];
  createdAt: Date;
  updatedAt: Date;
}

export interface NewOptInForm extends OptInFormAttributes {
  identifier: string;
  parentFormId: number | null;
  variantName: string | null;
  variantWeight: number;
  formBlocks: OptInFormBlockWrite[];
  postSubmissionBlocks: OptInFormBlockWrite[];
}

export type OptInFormChanges = Partial<OptInFormAttributes> & { variantWeight?: number; variantName?: string };

export interface OptInFormListFilter {
  /** A substring of the label, case-insensitive. */
  label?: string;
  widgetType?: WidgetType;
  enabled?: boolean;
}

/** Counters of a form, summed over its shards (and days). */
export interface OptInFormCounters {
  views: number;
  uniqueViews: number;
  submissions: number;
}

export interface OptInFormDailyCounters extends OptInFormCounters {
  formId: number;
  /** YYYY-MM-DD, UTC. */
  day: string;
}
