import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { ValidationError } from '../errors';
import { Clock, RandomSource, Transactor, type NewOptInForm, type OptInForm } from '../ports';
import { formOrNotFound, uuidFrom, VARIANT_OF_VARIANT } from './form-rules';

/** The copy of a form's attributes, settings and blocks under a new identifier. */
function copyOf(form: OptInForm, identifier: string): Omit<NewOptInForm, 'parentFormId' | 'variantName' | 'variantWeight'> {
  const {
    id: _id,
    channelId: _channel,
    identifier: _identifier,
    parentFormId: _parent,
    variantName: _name,
    variantWeight: _weight,
    createdAt: _created,
    updatedAt: _updated,
    formBlocks,
    postSubmissionBlocks,
    ...attributes
  } = form;
  const blocks = (list: OptInForm['formBlocks']) =>
    list.map(({ id: _b, formId: _f, placement: _p, createdAt: _c, updatedAt: _u, ...fields }) => ({ ...fields, options: [...fields.options] }));
  return { ...structuredClone(attributes), identifier, formBlocks: blocks(formBlocks), postSubmissionBlocks: blocks(postSubmissionBlocks) };
}

/** `Variant B`, `Variant C` … `Variant Z`, `Variant AA` …: the first letter name not taken (docs/opt-in-forms.md "Variants"). */
export function nextVariantName(taken: ReadonlySet<string>): string {
  for (let n = 1; ; n++) {
    let letters = '';
    for (let i = n; i >= 0; i = Math.floor(i / 26) - 1) letters = String.fromCharCode(65 + (i % 26)) + letters;
    const name = `Variant ${letters}`;
    if (!taken.has(name)) return name;
  }
}

export const MAX_VARIANT_NAME = 255;

/** A variant: a copy of a main form, split traffic by weight (0..100, default 50). */
@injectable()
export class CreateFormVariant {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
    @inject(RandomSource) private readonly random: RandomSource,
  ) {}

  execute(principal: Principal, input: { id: number; name?: string; weight?: number }): Promise<OptInForm> {
    return this.transactor.run(async (r) => {
      const main = await formOrNotFound(r, principal.channelId, input.id, true);
      if (main.parentFormId !== null) throw new ValidationError(VARIANT_OF_VARIANT);
      const name = input.name?.trim() || nextVariantName(new Set((await r.optInForms.variantsOf(main.id)).map((v) => v.variantName ?? '')));
      if (name.length > MAX_VARIANT_NAME) throw new ValidationError(`name is too long (maximum is ${MAX_VARIANT_NAME} characters)`);
      const copy = copyOf(main, uuidFrom(this.random.bytes(16)));
      return r.optInForms.create(
        principal.channelId,
        { ...copy, parentFormId: main.id, variantName: name, variantWeight: input.weight ?? 50 },
        this.clock.now(),
      );
    });
  }
}

/** A new main form copied from one: new identifier, `<label> (Copy)`, no variants, no figures. */
@injectable()
export class DuplicateOptInForm {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
    @inject(RandomSource) private readonly random: RandomSource,
  ) {}

  execute(principal: Principal, input: { id: number; label?: string }): Promise<OptInForm> {
    return this.transactor.run(async (r) => {
      const source = await formOrNotFound(r, principal.channelId, input.id);
      const label = input.label?.trim() || `${source.label} (Copy)`;
      const copy = copyOf(source, uuidFrom(this.random.bytes(16)));
      return r.optInForms.create(principal.channelId, { ...copy, label, parentFormId: null, variantName: null, variantWeight: 50 }, this.clock.now());
    });
  }
}
