/**
 * The embed script, `GET /f/:identifier/embed.js` (docs/opt-in-forms.md, "The embed script"):
 * reads its own address to find the form, fetches the form's render model from the same host,
 * and shows it as its widget type when its trigger, frequency and devices allow. Each widget
 * lives in a shadow root, so the host page's CSS and the form's do not meet. On the hosted page
 * it only wires the server-rendered form. It loads nothing from any other host (Turnstile's own
 * script aside, for a form that asks for it).
 */
import { FORM_CSS } from '../form-styles';
import type { FormRenderModel, RenderBlock } from '../render-model';
import { deviceAllows, frequencyAllows, scrolledPercent } from '../show-rules';
import { el, renderBlock } from './dom';

const script = document.currentScript as HTMLScriptElement | null;

function storage(kind: 'localStorage' | 'sessionStorage'): Storage | null {
  try {
    const s = window[kind];
    s.getItem('mailcast');
    return s;
  } catch {
    return null;
  }
}
const local = storage('localStorage');
const session = storage('sessionStorage');
const read = (s: Storage | null, key: string) => s?.getItem(key) ?? null;
const write = (s: Storage | null, key: string, value: string) => {
  try {
    s?.setItem(key, value);
  } catch {
    // storage full or refused: the widget simply forgets
  }
};

function randomId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function visitorId(): string {
  let id = read(local, 'mailcast:visitor');
  if (!id || !/^[0-9a-f]{32}$/.test(id)) {
    id = randomId();
    write(local, 'mailcast:visitor', id);
  }
  return id;
}

function postForm(url: string, body: URLSearchParams): Promise<Response> {
  // A form-encoded POST is a "simple" cross-origin request: no preflight, one round trip.
  return fetch(url, { method: 'POST', body, headers: { Accept: 'application/json' }, credentials: 'omit', keepalive: true });
}

const MESSAGES: Record<number, string> = {
  403: 'This form cannot be used here.',
  404: 'This form is no longer available.',
  429: 'Too many attempts. Please wait a little and try again.',
};

interface Wiring {
  submitUrl: string;
  visitor: string;
  renderedAt: () => number;
  after: () => Node[];
  onSuccess: () => void;
}

/** Submits the form with fetch and replaces it with the post-submission blocks on success. */
function wire(form: HTMLFormElement, w: Wiring): void {
  const error = el('p', { class: 'mc-error', role: 'alert' });
  form.append(error);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const body = new URLSearchParams();
    for (const [name, value] of new FormData(form)) if (typeof value === 'string') body.append(name, value);
    // An unticked topic box is an answer too: "no" (a missing one would mean "no choice").
    for (const box of form.querySelectorAll<HTMLInputElement>('input[type=checkbox][name^="topics["]')) if (!box.checked) body.set(box.name, '0');
    body.set('rendered_at', String(w.renderedAt()));
    body.set('visitor_id', w.visitor);
    const buttons = form.querySelectorAll<HTMLButtonElement>('button[type=submit]');
    buttons.forEach((b) => (b.disabled = true));
    error.textContent = '';
    postForm(w.submitUrl, body)
      .then(async (response) => {
        const answer = (await response.json().catch(() => ({}))) as { status?: string; message?: string; error?: string; errors?: Record<string, string[]> };
        if (!response.ok) {
          // A 422 names its field (`{errors: {email: [...]}}`) or says it in one sentence (`{error}`).
          const field = answer.errors ? Object.entries(answer.errors)[0] : undefined;
          error.textContent =
            MESSAGES[response.status] ?? answer.error ?? (field ? `${field[0]} ${field[1][0] ?? ''}`.trim() : 'Please check the form and try again.');
          return;
        }
        const done = el('div', { class: 'mc-done', role: 'status', tabindex: '-1' }, ...w.after());
        if (answer.status === 'confirmation_required' && answer.message) done.append(el('p', {}, answer.message));
        form.replaceWith(done);
        done.focus();
        w.onSuccess();
      })
      .catch(() => (error.textContent = 'Something went wrong. Please try again.'))
      .finally(() => buttons.forEach((b) => (b.disabled = false)));
  });
}

const blocksOf = (blocks: RenderBlock[]) => blocks.map(renderBlock).filter((n): n is HTMLElement => n !== null);

let turnstileLoad: Promise<void> | undefined;
interface TurnstileApi {
  render(container: HTMLElement, options: { sitekey: string }): void;
}
function turnstile(container: HTMLElement, siteKey: string, src: string): void {
  turnstileLoad ??= new Promise((resolve) => {
    const tag = el('script', { src, async: '' });
    tag.onload = () => resolve();
    document.head.append(tag);
  });
  void turnstileLoad.then(() => (window as unknown as { turnstile: TurnstileApi }).turnstile.render(container, { sitekey: siteKey }));
}

/** The form card: blocks, honeypot, submit wiring, theme colours as custom properties. */
function card(model: FormRenderModel, fetchedAt: number, onSuccess: () => void, extraClass = ''): { card: HTMLElement; form: HTMLFormElement } {
  const box = el('div', { class: `mc-form ${extraClass}`.trim() });
  const t = model.theme;
  box.style.setProperty('--mc-accent', t.accent);
  box.style.setProperty('--mc-bg', t.background);
  box.style.setProperty('--mc-text', t.text);
  box.style.setProperty('--mc-button-text', t.buttonText);
  box.style.setProperty('--mc-radius', `${t.radius}px`);
  const form = el('form', { 'accept-charset': 'utf-8' }, ...blocksOf(model.blocks));
  if (!model.blocks.some((b) => b.type === 'button')) form.append(el('button', { type: 'submit', class: 'mc-submit' }, 'Sign Up'));
  if (model.honeypot) {
    form.append(
      el(
        'div',
        { class: 'mc-hp', 'aria-hidden': 'true' },
        el('label', {}, 'Website', el('input', { type: 'text', name: 'website', tabindex: '-1', autocomplete: 'off' })),
      ),
    );
  }
  if (model.turnstileSiteKey && model.turnstileScript) {
    const slot = el('div');
    form.append(slot);
    turnstile(slot, model.turnstileSiteKey, model.turnstileScript);
  }
  const shownAt = performance.now();
  wire(form, {
    submitUrl: model.submitUrl,
    visitor: visitorId(),
    // When the visitor first saw the form, on the server's clock.
    renderedAt: () => Math.round(model.servedAt + (shownAt - fetchedAt)),
    after: () => blocksOf(model.after),
    onSuccess,
  });
  box.append(form);
  return { card: box, form };
}

/** A shadow root on a new element: the widget's own styles, untouched by the page's. */
function shadowHost(where: (host: HTMLElement) => void): ShadowRoot {
  const host = el('div', { 'data-mailcast-widget': '' });
  where(host);
  const root = host.attachShadow({ mode: 'open' });
  root.append(el('style', {}, FORM_CSS));
  return root;
}

const FOCUSABLE = 'a[href],button:not([disabled]),input:not([type=hidden]):not([tabindex="-1"]),select,textarea,[tabindex]:not([tabindex="-1"])';

/** Remembers a showing (frequency) and counts a view. */
function shown(model: FormRenderModel, visitor: string): void {
  write(local, `mailcast:shown:${model.identifier}`, String(Date.now()));
  write(session, `mailcast:session:${model.identifier}`, '1');
  void postForm(model.viewUrl, new URLSearchParams({ visitor_id: visitor })).catch(() => undefined);
}

function submitted(model: FormRenderModel): void {
  write(local, `mailcast:submitted:${model.identifier}`, '1');
}

/** An overlay (modal, full page, slide-in, bar): close button, Escape, focus kept inside a modal and given back. */
function overlay(model: FormRenderModel, fetchedAt: number, visitor: string, onClose: () => void = () => undefined): void {
  const modal = model.widget === 'popup_modal' || model.widget === 'full_page' || model.widget === 'floating_button';
  const extra = model.widget === 'slide_in_panel' ? 'mc-slide' : model.widget === 'sticky_bar' ? 'mc-bar' : '';
  const before = document.activeElement as HTMLElement | null;
  const root = shadowHost((host) => document.body.append(host));
  const close = () => {
    document.removeEventListener('keydown', onKey, true);
    root.host.remove();
    before?.focus?.();
    onClose();
  };
  const onKey = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      close();
      return;
    }
    if (modal && event.key === 'Tab') {
      const items = [...root.querySelectorAll<HTMLElement>(FOCUSABLE)];
      const first = items[0];
      const last = items[items.length - 1];
      const active = root.activeElement;
      if (event.shiftKey && (active === first || !active)) {
        event.preventDefault();
        last?.focus();
      } else if (!event.shiftKey && (active === last || !active)) {
        event.preventDefault();
        first?.focus();
      }
    }
  };
  const { card: box, form } = card(model, fetchedAt, () => submitted(model), extra);
  const heading = box.querySelector('h2');
  if (heading) heading.id ||= `mc-h-${model.identifier}`;
  box.setAttribute('role', model.widget === 'sticky_bar' ? 'region' : 'dialog');
  if (heading) box.setAttribute('aria-labelledby', heading.id);
  else box.setAttribute('aria-label', 'Sign up');
  if (modal) box.setAttribute('aria-modal', 'true');
  box.prepend(el('button', { type: 'button', class: 'mc-close', 'aria-label': 'Close' }, '×'));
  box.querySelector('.mc-close')!.addEventListener('click', close);
  if (modal) {
    const backdrop = el('div', { class: `mc-backdrop${model.widget === 'full_page' ? ' mc-full' : ''}` }, box);
    backdrop.addEventListener('click', (event) => event.target === backdrop && close());
    root.append(backdrop);
  } else {
    root.append(box);
  }
  document.addEventListener('keydown', onKey, true);
  (form.querySelector<HTMLElement>('input:not([tabindex="-1"]),select,textarea') ?? box.querySelector<HTMLElement>('.mc-close'))?.focus();
  shown(model, visitor);
}

/** Calls `show` once the form's trigger fires. */
function onTrigger(model: FormRenderModel, show: () => void): void {
  const t = model.trigger;
  if (t.trigger === 'time_delay') {
    setTimeout(show, Math.max(0, t.delaySeconds) * 1000);
  } else if (t.trigger === 'scroll') {
    const check = () => {
      const doc = document.documentElement;
      if (scrolledPercent(window.scrollY, window.innerHeight, doc.scrollHeight) >= t.scrollPercentage) {
        window.removeEventListener('scroll', check);
        show();
      }
    };
    window.addEventListener('scroll', check, { passive: true });
    check();
  } else if (t.trigger === 'exit_intent') {
    const leave = (event: MouseEvent) => {
      if (event.clientY <= 0 && !event.relatedTarget) {
        document.removeEventListener('mouseout', leave);
        show();
      }
    };
    document.addEventListener('mouseout', leave);
  } else {
    show();
  }
}

function whenReady(run: () => void): void {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', run, { once: true });
  else run();
}

function start(model: FormRenderModel, fetchedAt: number, visitor: string, place: (host: HTMLElement) => void): void {
  if (!deviceAllows(model.trigger.devices, window.innerWidth)) return;
  if (model.widget === 'inline_embed') {
    const root = shadowHost(place);
    root.append(card(model, fetchedAt, () => submitted(model)).card);
    shown(model, visitor);
    return;
  }
  const memory = {
    lastShownAt: Number(read(local, `mailcast:shown:${model.identifier}`)) || null,
    shownThisSession: read(session, `mailcast:session:${model.identifier}`) === '1',
    submitted: read(local, `mailcast:submitted:${model.identifier}`) === '1',
  };
  if (!frequencyAllows(model.trigger.frequency, memory, Date.now())) return;
  whenReady(() =>
    onTrigger(model, () => {
      if (model.widget !== 'floating_button') {
        overlay(model, fetchedAt, visitor);
        return;
      }
      const label = model.blocks.find((b) => b.type === 'button')?.label || 'Sign Up';
      const root = shadowHost((host) => document.body.append(host));
      const fab = el('button', { type: 'button', class: 'mc-form mc-submit mc-fab', 'aria-haspopup': 'dialog' }, label);
      fab.style.setProperty('--mc-accent', model.theme.accent);
      fab.style.setProperty('--mc-button-text', model.theme.buttonText);
      fab.addEventListener('click', () => {
        fab.hidden = true;
        overlay(model, fetchedAt, visitor, () => {
          fab.hidden = false;
          fab.focus();
        });
      });
      root.append(fab);
    }),
  );
}

/** The hosted page: the form is already there; wire it and count the view. */
function hosted(container: HTMLElement): void {
  const form = container.querySelector('form');
  const after = container.querySelector<HTMLTemplateElement>('template.mc-after');
  const { viewUrl = '', submitUrl = '', visitor = '', renderedAt = '0' } = container.dataset;
  if (!form) return;
  wire(form, {
    submitUrl,
    visitor,
    renderedAt: () => Number(renderedAt),
    after: () => (after ? [...(after.content.cloneNode(true) as DocumentFragment).childNodes] : []),
    onSuccess: () => undefined,
  });
  void postForm(viewUrl, new URLSearchParams({ visitor_id: visitor })).catch(() => undefined);
}

function main(): void {
  const page = document.querySelector<HTMLElement>('[data-mailcast-hosted]');
  if (page && script?.hasAttribute('data-hosted')) {
    hosted(page);
    return;
  }
  if (!script?.src) return;
  const visitor = visitorId();
  const modelUrl = new URL('form.json', script.src);
  modelUrl.searchParams.set('visitor', visitor);
  const identifier = modelUrl.pathname.split('/').slice(-2)[0] ?? '';
  const targetSelector = script.dataset.target;
  // Where an inline form goes: the target the tag names, an element marked for this form, or right after the tag.
  const anchor = script;
  const place = (host: HTMLElement) => {
    const target =
      (targetSelector ? document.querySelector(targetSelector) : null) ?? document.querySelector(`[data-mailcast-form="${CSS.escape(identifier)}"]`);
    if (target) target.append(host);
    else if (anchor.isConnected && anchor.parentNode !== document.head) anchor.after(host);
    else document.body.append(host);
  };
  let fetchedAt = 0;
  fetch(modelUrl, { credentials: 'omit', headers: { Accept: 'application/json' } })
    .then((response) => {
      fetchedAt = performance.now();
      return response.ok ? (response.json() as Promise<FormRenderModel>) : null;
    })
    .then((model) => {
      if (!model) return;
      if (model.widget === 'inline_embed' && targetSelector) whenReady(() => start(model, fetchedAt, visitor, place));
      else start(model, fetchedAt, visitor, place);
    })
    .catch(() => undefined);
}

main();
