import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { ValidationError } from '../errors';
import { Clock, Repositories, type OptInFormCounters } from '../ports';
import { formOrNotFound } from './form-rules';

/** Unique views that became submissions, a percentage rounded to two decimals; 0 without views. */
export function conversionRate(submissions: number, uniqueViews: number): number {
  return uniqueViews <= 0 ? 0 : Math.round((submissions * 10_000) / uniqueViews) / 100;
}

export const ANALYTICS_DEFAULT_DAYS = 30;
export const ANALYTICS_MAX_DAYS = 1_000;
export const END_BEFORE_START = 'end_date must not be before start_date';

export interface FormFigures extends OptInFormCounters {
  conversionRate: number;
}

export interface FormAnalytics {
  formId: number;
  startDate: string;
  endDate: string;
  totals: FormFigures;
  /** Every day of the range, oldest first, zeros where nothing happened. */
  daily: Array<FormFigures & { date: string }>;
  /** Each variant of a main form over the same range. */
  variants: Array<FormFigures & { formId: number; variantName: string; variantWeight: number }>;
}

const DAY_MS = 86_400_000;
const dayOf = (d: Date) => d.toISOString().slice(0, 10);
const figures = (c: OptInFormCounters): FormFigures => ({ ...c, conversionRate: conversionRate(c.submissions, c.uniqueViews) });
const add = (a: OptInFormCounters, b: OptInFormCounters): OptInFormCounters => ({
  views: a.views + b.views,
  uniqueViews: a.uniqueViews + b.uniqueViews,
  submissions: a.submissions + b.submissions,
});
const ZERO: OptInFormCounters = { views: 0, uniqueViews: 0, submissions: 0 };

/**
 * A form's figures over a range of UTC days, from its sharded daily counters summed
 * (docs/opt-in-forms.md "Analytics"). Totals and days are the form's own; a main form's variants
 * are listed apart, each with its own totals, so each arm of a split test reads on its own.
 */
@injectable()
export class GetFormAnalytics {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** `startDate` / `endDate` are YYYY-MM-DD; absent: the last 30 days up to today. */
  async execute(principal: Principal, input: { id: number; startDate?: string; endDate?: string }): Promise<FormAnalytics> {
    const r = this.repositories;
    const form = await formOrNotFound(r, principal.channelId, input.id);
    const endDate = input.endDate ?? dayOf(this.clock.now());
    const startDate = input.startDate ?? dayOf(new Date(Date.parse(`${endDate}T00:00:00Z`) - (ANALYTICS_DEFAULT_DAYS - 1) * DAY_MS));
    const start = Date.parse(`${startDate}T00:00:00Z`);
    const end = Date.parse(`${endDate}T00:00:00Z`);
    if (end < start) throw new ValidationError(END_BEFORE_START);
    const days = (end - start) / DAY_MS + 1;
    if (days > ANALYTICS_MAX_DAYS) throw new ValidationError(`the date range may span at most ${ANALYTICS_MAX_DAYS} days`);

    const variants = form.parentFormId === null ? await r.optInForms.variantsOf(form.id) : [];
    const rows = await r.optInForms.dailyCounters([form.id, ...variants.map((v) => v.id)], startDate, endDate);
    const own = new Map(rows.filter((row) => row.formId === form.id).map((row) => [row.day, row]));
    const daily = Array.from({ length: days }, (_, i) => {
      const date = dayOf(new Date(start + i * DAY_MS));
      const c = own.get(date);
      return { date, ...figures(c ? { views: c.views, uniqueViews: c.uniqueViews, submissions: c.submissions } : ZERO) };
    });
    const totals = figures(daily.reduce<OptInFormCounters>(add, ZERO));
    return {
      formId: form.id,
      startDate,
      endDate,
      totals,
      daily,
      variants: variants.map((v) => ({
        formId: v.id,
        variantName: v.variantName ?? '',
        variantWeight: v.variantWeight,
        ...figures(rows.filter((row) => row.formId === v.id).reduce<OptInFormCounters>(add, ZERO)),
      })),
    };
  }
}
