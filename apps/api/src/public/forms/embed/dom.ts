import type { RenderBlock } from '../render-model';

/** Builds DOM from the render model: text goes in as text nodes and attribute values, never as HTML. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  for (const child of children) node.append(child);
  return node;
}

let ids = 0;
const nextId = () => `mc-${++ids}`;

function field(block: RenderBlock): HTMLElement {
  const id = nextId();
  const attrs: Record<string, string> = { id, name: block.name };
  if (block.required) attrs.required = '';
  if (block.placeholder) attrs.placeholder = block.placeholder;
  let control: HTMLElement;
  if (block.multiline) control = el('textarea', { ...attrs, rows: '3' });
  else control = el('input', { ...attrs, type: block.inputType, ...(block.inputType === 'email' ? { autocomplete: 'email' } : {}) });
  return el('div', { class: 'mc-field' }, el('label', { for: id }, block.label || block.name), control);
}

function choice(block: RenderBlock): HTMLElement {
  if (block.type === 'dropdown') {
    const id = nextId();
    const select = el('select', { id, name: block.name, ...(block.required ? { required: '' } : {}) }, el('option', { value: '' }, block.placeholder || '—'));
    for (const option of block.options) select.append(el('option', { value: option.value }, option.label));
    return el('div', { class: 'mc-field' }, el('label', { for: id }, block.label), select);
  }
  const set = el('fieldset', {}, el('legend', {}, block.label));
  for (const option of block.options) {
    set.append(
      el(
        'label',
        { class: 'mc-check' },
        el('input', { type: 'radio', name: block.name, value: option.value, ...(block.required ? { required: '' } : {}) }),
        option.label,
      ),
    );
  }
  return el('div', { class: 'mc-field' }, set);
}

/** One block as DOM, or null for a block the form view does not show. */
export function renderBlock(block: RenderBlock): HTMLElement | null {
  switch (block.type) {
    case 'heading':
      return el('h2', {}, block.text);
    case 'text':
      return el('p', {}, block.text);
    case 'image':
      return el('img', { src: block.imageUrl, alt: block.text, loading: 'lazy', referrerpolicy: 'no-referrer' });
    case 'divider':
      return el('hr');
    case 'spacer':
      return el('div', { class: 'mc-spacer', 'aria-hidden': 'true' });
    case 'field':
      return field(block);
    case 'checkbox':
      return el(
        'div',
        { class: 'mc-field' },
        el(
          'label',
          { class: 'mc-check' },
          el('input', { type: 'checkbox', name: block.name, value: '1', ...(block.required ? { required: '' } : {}) }),
          block.label,
        ),
      );
    case 'dropdown':
    case 'radio_group':
      return choice(block);
    case 'button':
      return el('button', { type: 'submit', class: 'mc-submit' }, block.label || 'Sign Up');
  }
}
