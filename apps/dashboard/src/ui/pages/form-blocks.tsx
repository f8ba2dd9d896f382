import { useState } from 'preact/hooks';
import type { OptInFormBlock, OptInFormInput, Topic } from '../api';
import { Field } from '../components';

export type BlockType = OptInFormBlock['block_type'];
/** A block being edited: the API's fields, without the ones it sets (`key` is the list's own). */
export type DraftBlock = Omit<OptInFormBlock, 'id' | 'created_at' | 'updated_at'> & { key: number };

const BLOCK_LABELS: Record<BlockType, string> = {
  heading: 'Heading',
  text: 'Text',
  image: 'Image',
  input_field: 'Input field',
  checkbox: 'Checkbox',
  dropdown: 'Dropdown',
  radio_group: 'Radio group',
  custom_field: 'Custom field',
  topic: 'Topic',
  button: 'Button',
  divider: 'Divider',
  spacer: 'Spacer',
};

let nextKey = 1;
export function draftOf(b: OptInFormBlock): DraftBlock {
  const rest: Partial<OptInFormBlock> = { ...b };
  delete rest.id;
  delete rest.created_at;
  delete rest.updated_at;
  return { ...(rest as Omit<OptInFormBlock, 'id' | 'created_at' | 'updated_at'>), key: nextKey++ };
}
export function newBlock(type: BlockType): DraftBlock {
  return {
    key: nextKey++,
    block_type: type,
    position: 0,
    text_value: type === 'heading' ? 'Join the newsletter' : type === 'text' ? 'News once a week, no spam.' : null,
    input_field_label: null,
    input_field_placeholder: null,
    input_field_value_type: type === 'input_field' ? 'first_name' : null,
    custom_field_key: null,
    required: false,
    multiline: false,
    options: [],
    checkbox_label: null,
    topic_id: null,
    image_url: null,
    button_label: type === 'button' ? 'Sign Up' : null,
    custom_css: null,
  };
}
/** The blocks as the API takes them: the whole list, in order (`opt_in_form_blocks` replaces the view). */
export function blocksBody(blocks: DraftBlock[]): NonNullable<OptInFormInput['opt_in_form_blocks']> {
  return blocks.map((block, position) => {
    const b: Partial<DraftBlock> = { ...block, position };
    delete b.key;
    return b;
  });
}

/** Where a list is shown: the form view, or what replaces it after a sign-up (docs/dashboard.md, "Forms"). */
interface ListPlace {
  legend: string;
  /** The list's class and the name of its block-type picker. */
  list: string;
  picker: string;
  /** Names a block in its fields' labels: "Text (block 2)", "Text (after sign-up 1)". */
  prefix: string;
  /** The block types this list may hold (the API refuses others). */
  types: readonly BlockType[];
}

/** The form view's list. */
export const FORM_LIST: ListPlace = {
  legend: 'Blocks',
  list: 'block-list',
  picker: 'new_block_type',
  prefix: 'block',
  types: Object.keys(BLOCK_LABELS) as BlockType[],
};

/** Blocks: add, remove, move up/down and edit; saved with the form (the API checks them). */
export function BlockList({
  blocks,
  topics,
  onChange,
  place = FORM_LIST,
}: {
  blocks: DraftBlock[];
  topics: Topic[];
  onChange(b: DraftBlock[]): void;
  place?: ListPlace;
}) {
  const [type, setType] = useState<BlockType>(place.types[0]!);
  const update = (key: number, patch: Partial<DraftBlock>) => onChange(blocks.map((b) => (b.key === key ? { ...b, ...patch } : b)));
  const move = (index: number, by: number) => {
    const next = blocks.slice();
    const [item] = next.splice(index, 1);
    next.splice(index + by, 0, item!);
    onChange(next);
  };
  return (
    <fieldset class="stack blocks">
      <legend>{place.legend}</legend>
      <ol class={place.list}>
        {blocks.map((b, i) => (
          <li key={b.key} data-block={b.block_type}>
            <div class="block-head">
              <strong>{BLOCK_LABELS[b.block_type]}</strong>
              <span class="actions">
                <button type="button" data-do="up" disabled={i === 0} onClick={() => move(i, -1)} aria-label={`Move ${place.prefix} ${i + 1} up`}>
                  ↑
                </button>
                <button
                  type="button"
                  data-do="down"
                  disabled={i === blocks.length - 1}
                  onClick={() => move(i, 1)}
                  aria-label={`Move ${place.prefix} ${i + 1} down`}
                >
                  ↓
                </button>
                <button
                  type="button"
                  data-do="remove"
                  onClick={() => onChange(blocks.filter((x) => x.key !== b.key))}
                  aria-label={`Remove ${place.prefix} ${i + 1}`}
                >
                  Remove
                </button>
              </span>
            </div>
            <BlockFields block={b} label={`${place.prefix} ${i + 1}`} topics={topics} onChange={(patch) => update(b.key, patch)} />
          </li>
        ))}
      </ol>
      <div class="row">
        <Field label={place.prefix === 'block' ? 'New block' : `New block (${place.legend.toLowerCase()})`}>
          <select name={place.picker} value={type} onChange={(e) => setType(e.currentTarget.value as BlockType)}>
            {place.types.map((value) => (
              <option key={value} value={value}>
                {BLOCK_LABELS[value]}
              </option>
            ))}
          </select>
        </Field>
        <button type="button" data-do="add" onClick={() => onChange([...blocks, newBlock(type)])}>
          Add block
        </button>
      </div>
    </fieldset>
  );
}

function BlockFields({ block: b, label: n, topics, onChange }: { block: DraftBlock; label: string; topics: Topic[]; onChange(p: Partial<DraftBlock>): void }) {
  const name = n.replace(/ /g, '_');
  const textField = (
    key: 'text_value' | 'input_field_label' | 'input_field_placeholder' | 'custom_field_key' | 'checkbox_label' | 'image_url' | 'button_label',
    label: string,
  ) => (
    <Field label={`${label} (${n})`}>
      <input
        name={`${key}_${name}`}
        data-field={key}
        value={b[key] ?? ''}
        onInput={(e) => onChange({ [key]: e.currentTarget.value === '' ? null : e.currentTarget.value })}
      />
    </Field>
  );
  const required = (
    <label>
      <input type="checkbox" data-field="required" checked={b.required} onChange={(e) => onChange({ required: e.currentTarget.checked })} /> Required
    </label>
  );
  switch (b.block_type) {
    case 'heading':
    case 'text':
      return <div class="row">{textField('text_value', 'Text')}</div>;
    case 'image':
      return (
        <div class="row">
          {textField('image_url', 'Image address')}
          {textField('text_value', 'Alternative text')}
        </div>
      );
    case 'input_field':
      return (
        <div class="row">
          <Field label={`Value (${n})`}>
            <select
              data-field="input_field_value_type"
              value={b.input_field_value_type ?? 'email'}
              onChange={(e) => onChange({ input_field_value_type: e.currentTarget.value as DraftBlock['input_field_value_type'] })}
            >
              {['email', 'first_name', 'last_name', 'name', 'custom'].map((v) => (
                <option key={v} value={v}>
                  {v.replace('_', ' ')}
                </option>
              ))}
            </select>
          </Field>
          {textField('input_field_label', 'Label')}
          {textField('input_field_placeholder', 'Placeholder')}
          {b.input_field_value_type === 'custom' && textField('custom_field_key', 'Custom field key')}
          {required}
        </div>
      );
    case 'custom_field':
    case 'checkbox':
    case 'dropdown':
    case 'radio_group':
      return (
        <div class="row">
          {textField('custom_field_key', 'Custom field key')}
          {b.block_type === 'checkbox' ? textField('checkbox_label', 'Box label') : textField('input_field_label', 'Label')}
          {(b.block_type === 'dropdown' || b.block_type === 'radio_group') && (
            <Field label={`Options (${n})`} hint="Comma-separated">
              <input
                data-field="options"
                value={b.options.join(', ')}
                onInput={(e) =>
                  onChange({
                    options: e.currentTarget.value
                      .split(',')
                      .map((o) => o.trim())
                      .filter((o) => o !== ''),
                  })
                }
              />
            </Field>
          )}
          {required}
        </div>
      );
    case 'topic':
      return (
        <div class="row">
          <Field label={`Topic (${n})`}>
            <select
              data-field="topic_id"
              value={b.topic_id === null ? '' : String(b.topic_id)}
              onChange={(e) => onChange({ topic_id: e.currentTarget.value === '' ? null : Number(e.currentTarget.value) })}
            >
              <option value="">—</option>
              {topics.map((t) => (
                <option key={t.id} value={String(t.id)}>
                  {t.name}
                </option>
              ))}
            </select>
          </Field>
          {textField('checkbox_label', 'Box label')}
        </div>
      );
    case 'button':
      return <div class="row">{textField('button_label', 'Button label')}</div>;
    default:
      return null;
  }
}
