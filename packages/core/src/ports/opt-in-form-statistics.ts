/**
 * Writes the views of opt_in_form_daily_statistics (sharded rows, summed when read by
 * OptInFormRepository) and the unique-visitor memory of opt_in_form_visitors
 * (docs/opt-in-forms.md, "Counting"). `day` is a UTC date, YYYY-MM-DD. Submissions are counted
 * by SubmitOptInForm, in the transaction of the sign-up.
 */
export interface OptInFormStatistics {
  /** Counts a view, and a unique view when this visitor was not yet counted for the form on that day. */
  recordView(formId: number, visitor: string, day: string): Promise<{ unique: boolean }>;
}
export const OptInFormStatistics = Symbol.for('mailcast.OptInFormStatistics');
