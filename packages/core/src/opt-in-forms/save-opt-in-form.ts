import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { ValidationError } from '../errors';
import { Clock, RandomSource, Transactor, type OptInForm, type OptInFormBlockWrite, type Repositories } from '../ports';
import { deepMerge, SETTINGS_GROUPS, settingsFromJson, settingsToJson } from './form-settings';
import { checkBlocks, checkReferences, defaultBlocks, formOrNotFound, resolveBlocks, uuidFrom, VARIANTS_ONLY, type OptInFormInput } from './form-rules';

/** The settings a write ends with: each patch deep-merged into the current group (docs/opt-in-forms.md "Updating"). */
function mergedSettings(current: OptInForm | null, input: OptInFormInput) {
  const base = current === null ? settingsToJson(settingsFromJson({})) : settingsToJson(current);
  const merged: Record<string, unknown> = {};
  for (const group of SETTINGS_GROUPS) {
    const patch = input.settings[group];
    merged[group] = patch === null ? {} : deepMerge(base[group], patch ?? {});
  }
  return settingsFromJson(merged);
}

/** Writes the form's block lists as they end, after checking them together. */
async function writeBlocks(r: Repositories, channelId: number, current: OptInForm | null, input: OptInFormInput) {
  const defaults = current === null && input.formBlocks === undefined && input.postSubmissionBlocks === undefined ? defaultBlocks() : null;
  const formBlocks: OptInFormBlockWrite[] =
    defaults?.formBlocks ?? (input.formBlocks ? resolveBlocks(current?.formBlocks ?? [], input.formBlocks, 'opt_in_form_blocks') : (current?.formBlocks ?? []));
  const postSubmissionBlocks: OptInFormBlockWrite[] =
    defaults?.postSubmissionBlocks ??
    (input.postSubmissionBlocks
      ? resolveBlocks(current?.postSubmissionBlocks ?? [], input.postSubmissionBlocks, 'opt_in_post_submission_blocks')
      : (current?.postSubmissionBlocks ?? []));
  await checkBlocks(r, channelId, formBlocks, postSubmissionBlocks);
  return { formBlocks, postSubmissionBlocks };
}

/**
 * A new main form: defaults for what is not given, the three default blocks when no block list
 * is given (docs/opt-in-forms.md). One transaction: nothing is written unless all of it is.
 */
@injectable()
export class CreateOptInForm {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
    @inject(RandomSource) private readonly random: RandomSource,
  ) {}

  execute(principal: Principal, input: OptInFormInput): Promise<OptInForm> {
    const label = input.attributes.label?.trim() ?? '';
    if (label === '') return Promise.reject(new ValidationError("label can't be blank"));
    if (input.variant !== undefined) return Promise.reject(new ValidationError(VARIANTS_ONLY));
    return this.transactor.run(async (r) => {
      const settings = mergedSettings(null, input);
      const attributes = {
        formType: 'embed' as const,
        widgetType: 'inline_embed' as const,
        enabled: true,
        allowedEmbeddingDomains: [],
        confirmationEmailTemplateId: null,
        welcomeEmailTemplateId: null,
        confirmationRedirectUrl: null,
        includeUnsubscribeLinkInConfirmation: true,
        ...input.attributes,
        label,
      };
      await checkReferences(r, principal.channelId, { ...attributes, ...settings });
      const blocks = await writeBlocks(r, principal.channelId, null, input);
      return r.optInForms.create(
        principal.channelId,
        { ...attributes, ...settings, ...blocks, identifier: uuidFrom(this.random.bytes(16)), parentFormId: null, variantName: null, variantWeight: 50 },
        this.clock.now(),
      );
    });
  }
}

/** Only what is given changes; settings objects deep-merge, `null` deleting a key; block lists as given. */
@injectable()
export class UpdateOptInForm {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(principal: Principal, input: OptInFormInput & { id: number }): Promise<OptInForm> {
    const now = this.clock.now();
    return this.transactor.run(async (r) => {
      const current = await formOrNotFound(r, principal.channelId, input.id, true);
      const attributes = { ...input.attributes };
      if (attributes.label !== undefined) {
        attributes.label = attributes.label.trim();
        if (attributes.label === '') throw new ValidationError("label can't be blank");
      }
      const settings = mergedSettings(current, input);
      const variant: { variantName?: string; variantWeight?: number } = {};
      if (input.variant !== undefined) {
        if (current.parentFormId === null) throw new ValidationError(VARIANTS_ONLY);
        const name = input.variant.name?.trim();
        if (name === '') throw new ValidationError("variant_name can't be blank");
        if (name !== undefined) variant.variantName = name;
        if (input.variant.weight !== undefined) variant.variantWeight = input.variant.weight;
      }
      await checkReferences(r, principal.channelId, { ...current, ...attributes, ...settings });
      if (input.formBlocks !== undefined || input.postSubmissionBlocks !== undefined) {
        const blocks = await writeBlocks(r, principal.channelId, current, input);
        if (input.formBlocks !== undefined) await r.optInForms.saveBlocks(current.id, 'form', blocks.formBlocks, now);
        if (input.postSubmissionBlocks !== undefined) await r.optInForms.saveBlocks(current.id, 'post_submission', blocks.postSubmissionBlocks, now);
      }
      return r.optInForms.update(principal.channelId, current.id, { ...attributes, ...settings, ...variant }, now);
    });
  }
}
