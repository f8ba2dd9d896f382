import { createHash } from 'node:crypto';

/** One form a visitor may be shown: the main form or one of its variants, with its weight. */
export interface WeightedForm {
  id: number;
  weight: number;
}

/**
 * Which of a main form and its variants a visitor sees (docs/opt-in-forms.md, "Variant
 * assignment"): the SHA-256 of the main form's id and the visitor's id, read as a number below
 * the sum of the weights, falls into one form's stretch of the cumulative weights. The same
 * visitor gets the same form for as long as the weights stay as they are; a new weight moves only
 * the visitors whose point changes stretch. Forms of weight 0 are never chosen; when every
 * weight is 0 the first form (the main one) is.
 */
export function chooseVariant<T extends WeightedForm>(mainFormId: number, visitorId: string, forms: readonly T[]): T {
  if (forms.length === 0) throw new Error('chooseVariant needs at least one form');
  const weights = forms.map((form) => (Number.isFinite(form.weight) && form.weight > 0 ? Math.floor(form.weight) : 0));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  if (total === 0) return forms[0]!;
  const point = variantPoint(mainFormId, visitorId) % total;
  let cumulative = 0;
  for (let i = 0; i < forms.length; i++) {
    cumulative += weights[i]!;
    if (point < cumulative) return forms[i]!;
  }
  return forms[forms.length - 1]!;
}

/** 48 bits of the hash: exact as a JavaScript number, and far more than any sum of weights. */
function variantPoint(mainFormId: number, visitorId: string): number {
  const digest = createHash('sha256').update(`${mainFormId}:${visitorId}`).digest();
  return digest.readUIntBE(0, 6);
}
