import { escapeHtml } from '@mailcast/domain';
import { FORM_CSS } from './form-styles';
import type { FormRenderModel, RenderBlock } from './render-model';

/**
 * The hosted page's HTML (docs/opt-in-forms.md, "The hosted page"): the form rendered on the
 * server from the render model, every stored text escaped, colours only as checked hex values.
 * It works without script (a plain form POST, answered with a page); the embed script, loaded
 * with the page's nonce, submits it in place instead.
 */
const e = escapeHtml;
let counter = 0;

function blockHtml(block: RenderBlock): string {
  const id = `f${++counter}`;
  const required = block.required ? ' required' : '';
  switch (block.type) {
    case 'heading':
      return `<h2>${e(block.text)}</h2>`;
    case 'text':
      return `<p>${e(block.text)}</p>`;
    case 'image':
      return `<img src="${e(block.imageUrl)}" alt="${e(block.text)}" referrerpolicy="no-referrer">`;
    case 'divider':
      return '<hr>';
    case 'spacer':
      return '<div class="mc-spacer" aria-hidden="true"></div>';
    case 'field': {
      const placeholder = block.placeholder ? ` placeholder="${e(block.placeholder)}"` : '';
      const control = block.multiline
        ? `<textarea id="${id}" name="${e(block.name)}" rows="3"${placeholder}${required}></textarea>`
        : `<input id="${id}" type="${block.inputType}" name="${e(block.name)}"${block.inputType === 'email' ? ' autocomplete="email"' : ''}${placeholder}${required}>`;
      return `<div class="mc-field"><label for="${id}">${e(block.label || block.name)}</label>${control}</div>`;
    }
    case 'checkbox':
      return `<div class="mc-field"><label class="mc-check"><input type="checkbox" name="${e(block.name)}" value="1"${required}>${e(block.label)}</label></div>`;
    case 'dropdown':
      return (
        `<div class="mc-field"><label for="${id}">${e(block.label)}</label><select id="${id}" name="${e(block.name)}"${required}>` +
        `<option value="">${e(block.placeholder || '—')}</option>` +
        block.options.map((o) => `<option value="${e(o.value)}">${e(o.label)}</option>`).join('') +
        '</select></div>'
      );
    case 'radio_group':
      return (
        `<div class="mc-field"><fieldset><legend>${e(block.label)}</legend>` +
        block.options
          .map((o) => `<label class="mc-check"><input type="radio" name="${e(block.name)}" value="${e(o.value)}"${required}>${e(o.label)}</label>`)
          .join('') +
        '</fieldset></div>'
      );
    case 'button':
      return `<button type="submit" class="mc-submit">${e(block.label || 'Sign Up')}</button>`;
  }
}

export const blocksHtml = (blocks: RenderBlock[]) => blocks.map(blockHtml).join('');

function themeCss(model: FormRenderModel): string {
  const t = model.theme;
  // Each value was checked as a hex colour or is a number (public-form.ts formTheme).
  return `.mc-form{--mc-accent:${t.accent};--mc-bg:${t.background};--mc-text:${t.text};--mc-button-text:${t.buttonText};--mc-radius:${t.radius}px}`;
}

function pageHtml(nonce: string, title: string, body: string, model: FormRenderModel, turnstile = false): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${e(title)}</title><style nonce="${nonce}">body{margin:0;min-height:100vh;display:flex;align-items:flex-start;justify-content:center;padding:3rem 1rem;background:#f4f4f5}` +
    `.mc-form{width:100%;box-shadow:0 1px 3px rgba(0,0,0,.1)}${FORM_CSS}${themeCss(model)}</style>` +
    (turnstile ? `<script nonce="${nonce}" src="https://challenges.cloudflare.com/turnstile/v0/api.js" async defer></script>` : '') +
    `</head><body><main>${body}</main></body></html>`
  );
}

/** The first heading's text, as the page's title. */
const titleOf = (model: FormRenderModel) => model.blocks.find((b) => b.type === 'heading')?.text || 'Sign up';

export function hostedPage(model: FormRenderModel, nonce: string, visitor: string, scriptUrl: string): string {
  const hasButton = model.blocks.some((b) => b.type === 'button');
  const honeypot = model.honeypot
    ? '<div class="mc-hp" aria-hidden="true"><label>Website <input type="text" name="website" tabindex="-1" autocomplete="off"></label></div>'
    : '';
  const turnstile = model.turnstileSiteKey ? `<div class="cf-turnstile" data-sitekey="${e(model.turnstileSiteKey)}"></div>` : '';
  const body =
    `<div class="mc-form" data-mailcast-hosted data-view-url="${e(model.viewUrl)}" data-submit-url="${e(model.submitUrl)}" ` +
    `data-visitor="${e(visitor)}" data-rendered-at="${model.servedAt}">` +
    `<form method="post" action="${e(model.submitUrl)}" accept-charset="utf-8">${blocksHtml(model.blocks)}` +
    `${hasButton ? '' : '<button type="submit" class="mc-submit">Sign Up</button>'}${honeypot}${turnstile}` +
    `<input type="hidden" name="rendered_at" value="${model.servedAt}"><input type="hidden" name="visitor_id" value="${e(visitor)}"></form>` +
    `<template class="mc-after">${blocksHtml(model.after)}</template></div>` +
    `<script nonce="${nonce}" src="${e(scriptUrl)}" data-hosted async></script>`;
  return pageHtml(nonce, titleOf(model), body, model, model.turnstileSiteKey !== null);
}

/** The answer to the hosted page's form posted without script: the post-submission blocks, or the problem. */
export function resultPage(model: FormRenderModel, nonce: string, outcome: { ok: true; message: string | null } | { ok: false; message: string }): string {
  const body = outcome.ok
    ? `<div class="mc-form" role="status">${blocksHtml(model.after)}${outcome.message ? `<p>${e(outcome.message)}</p>` : ''}</div>`
    : `<div class="mc-form" role="alert"><p class="mc-error">${e(outcome.message)}</p><p><a href="${e(model.submitUrl.replace(/\/submit$/, ''))}">Back to the form</a></p></div>`;
  return pageHtml(nonce, titleOf(model), body, model);
}

/** Content-Security-Policy of the hosted pages: only this page's nonce runs or styles anything. */
export function hostedPageCsp(nonce: string, turnstile: boolean): string {
  const cf = turnstile ? ' https://challenges.cloudflare.com' : '';
  return (
    `default-src 'none'; script-src 'nonce-${nonce}'${cf}; style-src 'nonce-${nonce}'; img-src https: data:; connect-src 'self'; ` +
    `form-action 'self'; base-uri 'none'; frame-ancestors 'none'${turnstile ? `; frame-src${cf}` : ''}`
  );
}
