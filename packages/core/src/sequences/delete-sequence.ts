import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { ValidationError } from '../errors';
import { Transactor } from '../ports';
import { SEQUENCE_ENROLLED_BY_FORM, SEQUENCE_TARGETED, sequenceOrNotFound } from './sequence-rules';

/**
 * Enrolments go with the sequence, without events; a sequence another one moves into, or an opt-in
 * form enrols in, stays (docs/sequences.md).
 */
@injectable()
export class DeleteSequence {
  constructor(@inject(Transactor) private readonly transactor: Transactor) {}

  execute(principal: Principal, input: { id: number }): Promise<void> {
    return this.transactor.run(async (r) => {
      await sequenceOrNotFound(r, principal.channelId, input.id, true);
      const movers = await r.sequences.movingInto(principal.channelId, input.id);
      if (movers.length > 0) throw new ValidationError(`${SEQUENCE_TARGETED} (${movers.join(', ')})`);
      const forms = await r.optInForms.enrollingInto(principal.channelId, input.id);
      if (forms.length > 0) throw new ValidationError(`${SEQUENCE_ENROLLED_BY_FORM} (${forms.join(', ')})`);
      await r.sequences.delete(principal.channelId, input.id);
    });
  }
}
