import { inject, injectable } from 'tsyringe';
import { Clock, OptInFormStatistics } from '../ports';

/** A UTC calendar day, as the daily counters key it. */
const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/**
 * Counts one view of a form (a main form or a variant: each row counts for itself), and a
 * unique view the first time a visitor is seen on the form that UTC day (docs/opt-in-forms.md,
 * "Counting").
 */
@injectable()
export class RecordOptInFormView {
  constructor(
    @inject(OptInFormStatistics) private readonly counters: OptInFormStatistics,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(input: { formId: number; visitorId: string }): Promise<{ unique: boolean }> {
    return this.counters.recordView(input.formId, input.visitorId, utcDay(this.clock.now()));
  }
}
