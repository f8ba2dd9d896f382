import {
  FORM_DEVICES,
  FORM_FREQUENCIES,
  FORM_TRIGGERS,
  OPT_IN_FORM_DEFAULTS,
  type AutomationSettings,
  type FormSettings,
  type SecuritySettings,
  type ThemeSettings,
  type TriggerSettings,
} from '../ports/entities/opt-in-form';

/**
 * The settings objects as stored and as the API shows them: snake_case keys (docs/opt-in-forms.md
 * "Settings"). Stored objects are read leniently: a key missing or of the wrong type takes its
 * default, so a key deleted by a PATCH (`null`) falls back to the default.
 */
export const SETTINGS_GROUPS = ['theme_settings', 'automation_settings', 'security_settings', 'trigger_settings', 'widget_settings'] as const;
export type SettingsGroup = (typeof SETTINGS_GROUPS)[number];
export type SettingsJson = Record<SettingsGroup, Record<string, unknown>>;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Json => (isObject(v) ? v : {});
const bool = (v: unknown, d: boolean) => (typeof v === 'boolean' ? v : d);
const int = (v: unknown, d: number) => (typeof v === 'number' && Number.isInteger(v) ? v : d);
const oneOf = <T extends string>(words: readonly T[], v: unknown, d: T): T =>
  typeof v === 'string' && (words as readonly string[]).includes(v) ? (v as T) : d;

function theme(raw: unknown): ThemeSettings {
  const t = obj(raw);
  return { ...t, colors: obj(t.colors), typography: obj(t.typography), layout: obj(t.layout), effects: obj(t.effects) };
}

function automation(raw: unknown): AutomationSettings {
  const a = obj(raw);
  const d = OPT_IN_FORM_DEFAULTS.automationSettings;
  return {
    tagList: Array.isArray(a.tag_list) ? a.tag_list.filter((t): t is string => typeof t === 'string') : [...d.tagList],
    sequenceIds: Array.isArray(a.sequence_ids) ? a.sequence_ids.filter((s): s is number => Number.isSafeInteger(s)) : [...d.sequenceIds],
    doubleOptIn: bool(a.double_opt_in, d.doubleOptIn),
    sendWelcomeEmail: bool(a.send_welcome_email, d.sendWelcomeEmail),
  };
}

function security(raw: unknown): SecuritySettings {
  const s = obj(raw);
  const d = OPT_IN_FORM_DEFAULTS.securitySettings;
  return {
    honeypot: bool(s.honeypot, d.honeypot),
    timeValidation: bool(s.time_validation, d.timeValidation),
    minSubmitSeconds: int(s.min_submit_seconds, d.minSubmitSeconds),
    rateLimit: bool(s.rate_limit, d.rateLimit),
    rateLimitMax: int(s.rate_limit_max, d.rateLimitMax),
    rateLimitWindowMinutes: int(s.rate_limit_window_minutes, d.rateLimitWindowMinutes),
    turnstile: bool(s.turnstile, d.turnstile),
    turnstileSiteKey: typeof s.turnstile_site_key === 'string' ? s.turnstile_site_key : d.turnstileSiteKey,
  };
}

function trigger(raw: unknown): TriggerSettings {
  const t = obj(raw);
  const d = OPT_IN_FORM_DEFAULTS.triggerSettings;
  return {
    trigger: oneOf(FORM_TRIGGERS, t.trigger, d.trigger),
    delaySeconds: int(t.delay_seconds, d.delaySeconds),
    scrollPercentage: int(t.scroll_percentage, d.scrollPercentage),
    frequency: oneOf(FORM_FREQUENCIES, t.frequency, d.frequency),
    devices: Array.isArray(t.devices)
      ? t.devices.filter((v): v is (typeof FORM_DEVICES)[number] => (FORM_DEVICES as readonly unknown[]).includes(v))
      : [...d.devices],
  };
}

/** Typed settings, defaults applied, from the stored (or merged) snake_case objects. */
export function settingsFromJson(raw: Partial<Record<SettingsGroup, unknown>>): FormSettings {
  return {
    themeSettings: theme(raw.theme_settings),
    automationSettings: automation(raw.automation_settings),
    securitySettings: security(raw.security_settings),
    triggerSettings: trigger(raw.trigger_settings),
    widgetSettings: { ...obj(raw.widget_settings) },
  };
}

/** The snake_case objects of typed settings: what is stored and what the API shows. */
export function settingsToJson(s: FormSettings): SettingsJson {
  return groupsToJson(s) as SettingsJson;
}

/** As settingsToJson, for the groups present. */
export function groupsToJson(s: Partial<FormSettings>): Partial<SettingsJson> {
  const out: Partial<SettingsJson> = {};
  if (s.themeSettings) out.theme_settings = { ...s.themeSettings };
  const a = s.automationSettings;
  if (a) out.automation_settings = { tag_list: a.tagList, sequence_ids: a.sequenceIds, double_opt_in: a.doubleOptIn, send_welcome_email: a.sendWelcomeEmail };
  const sec = s.securitySettings;
  if (sec) {
    out.security_settings = {
      honeypot: sec.honeypot,
      time_validation: sec.timeValidation,
      min_submit_seconds: sec.minSubmitSeconds,
      rate_limit: sec.rateLimit,
      rate_limit_max: sec.rateLimitMax,
      rate_limit_window_minutes: sec.rateLimitWindowMinutes,
      turnstile: sec.turnstile,
      turnstile_site_key: sec.turnstileSiteKey,
    };
  }
  const t = s.triggerSettings;
  if (t) {
    out.trigger_settings = {
      trigger: t.trigger,
      delay_seconds: t.delaySeconds,
      scroll_percentage: t.scrollPercentage,
      frequency: t.frequency,
      devices: t.devices,
    };
  }
  if (s.widgetSettings) out.widget_settings = { ...s.widgetSettings };
  return out;
}

/**
 * A PATCH's settings object merged into the current one, recursively: objects merge key by key,
 * anything else (arrays included) replaces, and `null` deletes the key (docs/opt-in-forms.md).
 */
export function deepMerge(current: Json, patch: Json): Json {
  const out: Json = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else if (isObject(value) && isObject(out[key])) out[key] = deepMerge(out[key] as Json, value);
    else if (isObject(value)) out[key] = deepMerge({}, value);
    else out[key] = value;
  }
  return out;
}
