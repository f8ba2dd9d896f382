import type { OptInForm } from '@mailcast/core';
import { DEFAULT_AFTER, num, renderBlock, renderTheme } from './render-rules';
import { WIDGET_TYPES, type FormRenderModel, type RenderBlock, type RenderTrigger, type WidgetType } from './render-model';

/** The trigger settings as the embed script reads them (defaults were applied by the model). */
export function formTrigger(form: OptInForm): RenderTrigger {
  const t = form.triggerSettings;
  return {
    trigger: t.trigger,
    delaySeconds: num(t.delaySeconds, 0, 0, 3600),
    scrollPercentage: num(t.scrollPercentage, 50, 0, 100),
    frequency: t.frequency,
    devices: [...t.devices],
  };
}

/** Cloudflare's Turnstile widget script (explicit rendering: the embed places the widget itself). */
export const TURNSTILE_SCRIPT_URL = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';

const AFTER_TYPES = new Set(['heading', 'text', 'image', 'divider', 'spacer']);

export function isWidgetType(value: string): value is WidgetType {
  return (WIDGET_TYPES as readonly string[]).includes(value);
}

/** The JSON the embed script renders, for the form row a visitor was given. */
export function renderModel(form: OptInForm, publicUrl: string, turnstileOn: boolean, now: number): FormRenderModel {
  const security = form.securitySettings;
  const siteKey = security.turnstile && turnstileOn ? security.turnstileSiteKey || null : null;
  const base = `${publicUrl}/f/${form.identifier}`;
  const after = form.postSubmissionBlocks
    .filter((b) => AFTER_TYPES.has(b.blockType))
    .map(renderBlock)
    .filter((b): b is RenderBlock => b !== null);
  return {
    identifier: form.identifier,
    widget: isWidgetType(form.widgetType) ? form.widgetType : 'inline_embed',
    viewUrl: `${base}/view`,
    submitUrl: `${base}/submit`,
    trigger: formTrigger(form),
    honeypot: security.honeypot,
    turnstileSiteKey: siteKey,
    turnstileScript: siteKey === null ? null : TURNSTILE_SCRIPT_URL,
    theme: renderTheme(form.themeSettings),
    blocks: form.formBlocks.map(renderBlock).filter((b): b is RenderBlock => b !== null),
    after: after.length > 0 ? after : DEFAULT_AFTER,
    servedAt: now,
  };
}

/**
 * Whether a request from `origin` may use the form (docs/opt-in-forms.md, "Protections"): no
 * Origin header (a direct POST, the hosted page's own form without script) or the product's own
 * origin always may; otherwise its host must be one of allowed_embedding_domains when that list
 * is not empty. A listed domain also admits its subdomains.
 */
export function originAllowed(form: OptInForm, origin: string | undefined, ownOrigin: string): boolean {
  if (origin === undefined || origin === ownOrigin) return true;
  const domains = form.allowedEmbeddingDomains.map((d) => normalizeDomain(d)).filter((d) => d !== '');
  if (domains.length === 0) return true;
  let host: string;
  try {
    host = new URL(origin).hostname.toLowerCase();
  } catch {
    return false;
  }
  return domains.some((d) => host === d || host.endsWith(`.${d}`));
}

/** `https://www.example.com/path` or `Example.com` → the bare lower-case host. */
function normalizeDomain(entry: string): string {
  const trimmed = entry.trim().toLowerCase();
  if (trimmed === '') return '';
  try {
    return new URL(trimmed.includes('://') ? trimmed : `http://${trimmed}`).hostname;
  } catch {
    return trimmed;
  }
}
