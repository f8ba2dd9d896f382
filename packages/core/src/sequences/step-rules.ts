import { CREATABLE_STEP_ACTIONS, parseStepSettings, SequenceTree, STEP_ACTIONS, type StepAction, type StepSettings } from '@mailcast/domain';
import { NotFoundError, ValidationError } from '../errors';
import type { Repositories, Sequence, SequenceStep, Templates, WebhookDestinations } from '../ports';
import { STEP_NOT_FOUND } from './sequence-rules';

/** What a step create or update carries: the action's fields by their API names. */
export interface StepInput {
  action?: string;
  label?: string | null;
  parentId?: number;
  /** Update only, send_email steps: a person's pause (true) or resume (false). */
  paused?: boolean;
  fields: Record<string, unknown>;
}

export interface StepChecks {
  templates: Templates;
  destinations: WebhookDestinations;
}

export function creatableAction(action: string | undefined): StepAction {
  const chosen = action ?? 'send_email';
  if (!(STEP_ACTIONS as readonly string[]).includes(chosen)) throw ValidationError.forFields({ action: [`${chosen} is not a step action`] });
  if (!CREATABLE_STEP_ACTIONS.includes(chosen as StepAction)) throw ValidationError.forFields({ action: [`${chosen} steps cannot be created`] });
  return chosen as StepAction;
}

export const treeOf = (steps: readonly SequenceStep[]) =>
  new SequenceTree(steps.map((s) => ({ id: s.id, parentId: s.parentId, action: s.action, branch: s.branch })));

export function stepOrNotFound(steps: readonly SequenceStep[], id: number): SequenceStep {
  const found = steps.find((s) => s.id === id);
  if (found === undefined) throw new NotFoundError(STEP_NOT_FOUND);
  return found;
}

const LIQUID_FIELDS = ['subject', 'preheader', 'body', 'html_body'] as const;

/**
 * The action's settings, checked as a whole against the channel: a template or target sequence
 * of its own, Liquid that parses, an HTTP destination webhooks may reach, and the tracking a
 * condition reads. Every problem is a 422 naming its field; nothing is written before this.
 */
export async function checkedStepSettings(
  r: Repositories,
  checks: StepChecks,
  sequence: Sequence,
  action: StepAction,
  given: Record<string, unknown>,
  current?: StepSettings,
): Promise<StepSettings> {
  const parsed = parseStepSettings(action, given, current);
  if ('errors' in parsed) throw ValidationError.forFields(parsed.errors);
  const s = parsed.settings;
  const errors: Record<string, string[]> = {};
  const fail = (field: string, message: string) => (errors[field] ??= []).push(message);

  if (action === 'send_email') {
    if (s.template_id != null) {
      const template = await r.templates.findById(sequence.channelId, s.template_id);
      if (template === null) fail('template_id', `template ${s.template_id} does not exist`);
      // A template fills the fields left empty (docs/templates.md), as for broadcasts.
      else {
        const fill = { subject: template.subject, preheader: template.preheader, body: template.body, html_body: template.htmlBody };
        for (const f of LIQUID_FIELDS) if (s[f] == null || s[f] === '') s[f] = fill[f];
        if (s.subject == null || s.subject.trim() === '') fail('subject', "can't be blank");
      }
    }
    for (const f of LIQUID_FIELDS) {
      const problem = typeof s[f] === 'string' ? checks.templates.check(s[f]) : null;
      if (problem !== null) fail(f, `is not valid Liquid: ${problem}`);
    }
  }
  if (action === 'condition') {
    if (s.condition_setting!.endsWith('_opened') && !sequence.trackOpens) fail('condition_setting', 'needs open tracking, which this sequence has off');
    if (s.condition_setting!.endsWith('_clicked') && !sequence.trackClicks) fail('condition_setting', 'needs click tracking, which this sequence has off');
  }
  if (action === 'move_to_sequence') {
    const target = s.target_sequence_id!;
    const found = target !== sequence.id && (await r.sequences.findById(sequence.channelId, target, { forUpdate: true })) !== null;
    if (!found) fail('target_sequence_id', `sequence ${target} is not another sequence of this channel`);
  }
  if (action === 'make_http_request') {
    const verdict = await checks.destinations.check(s.url!);
    if (!verdict.ok) fail('url', verdict.reason);
    const problem = typeof s.body === 'string' ? checks.templates.check(s.body) : null;
    if (problem !== null) fail('body', `is not valid Liquid: ${problem}`);
  }
  if (Object.keys(errors).length > 0) throw ValidationError.forFields(errors);
  return s;
}
