/**
 * Subject tests (docs/subject-tests.md): the settings' rules, the size of the sample and its
 * parts, and the winner. Pure: the adapters draw the sample and count the figures.
 */

export const SUBJECT_TEST_METRICS = ['human_opens', 'human_clicks'] as const;
export type SubjectTestMetric = (typeof SUBJECT_TEST_METRICS)[number];

export const SUBJECT_TEST_LIMITS = {
  subjects: { min: 2, max: 4 },
  samplePercent: { min: 5, max: 50 },
  waitMinutes: { min: 1, max: 1440 },
} as const;

/** A broadcast's subject test, as stored and answered (snake_case as in the API). */
export interface SubjectTest {
  subjects: string[];
  sample_percent: number;
  metric: SubjectTestMetric;
  wait_minutes: number;
}

/** One subject's figures over its part of the sample. */
export interface VariantFigures {
  sent: number;
  human_opens: number;
  human_clicks: number;
}

/** The recipients of each subject: `perVariant` each, so `perVariant * variants` in the sample. */
export interface SamplePlan {
  perVariant: number;
  sampleSize: number;
}

/**
 * The sample is `sample_percent` of the recipients, rounded down to a whole number per subject so
 * that the parts are equal; at least one each when there are recipients enough for every subject
 * (a tiny list still tests). The rest (everyone else) waits for the winner.
 */
export function samplePlan(recipients: number, samplePercent: number, variants: number): SamplePlan {
  if (recipients < variants) return { perVariant: 0, sampleSize: 0 };
  const perVariant = Math.max(1, Math.floor((recipients * samplePercent) / 100 / variants));
  return { perVariant, sampleSize: perVariant * variants };
}

/**
 * The winner: the subject whose part engaged most on the metric, as a rate over what its part was
 * sent (parts are equal when drawn, but a bounce or a skip makes them differ); a part sent nothing
 * has rate 0. Ties go to the first subject. Compared by cross-multiplication: no rounding.
 */
export function pickWinner(variants: readonly VariantFigures[], metric: SubjectTestMetric): number {
  let best = 0;
  const value = (v: VariantFigures) => (metric === 'human_opens' ? v.human_opens : v.human_clicks);
  for (let i = 1; i < variants.length; i++) {
    const a = variants[i]!;
    const b = variants[best]!;
    // a/sentA > b/sentB, with 0/0 as 0.
    const left = a.sent === 0 ? 0 : value(a) * Math.max(b.sent, 1);
    const right = b.sent === 0 ? 0 : value(b) * Math.max(a.sent, 1);
    if (left > right) best = i;
  }
  return best;
}

/** The subject line a recipient gets: their part's, the winner's for the rest, else the broadcast's. */
export function subjectFor(test: SubjectTest | null | undefined, variant: number | null | undefined, fallback: string): string {
  if (!test || variant === null || variant === undefined) return fallback;
  return test.subjects[variant] ?? fallback;
}
