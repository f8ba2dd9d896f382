import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Transactor, type Sequence, type SequenceChanges } from '../ports';
import { checkedSettings, SEQUENCE_DEFAULTS } from './sequence-rules';

/** A sequence with its entry point; defaults for whatever is not given (docs/sequences.md). */
@injectable()
export class CreateSequence {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(principal: Principal, input: SequenceChanges): Promise<Sequence> {
    return this.transactor.run(async (r) => {
      const settings = await checkedSettings(r, principal.channelId, { ...SEQUENCE_DEFAULTS, ...input }, input);
      return r.sequences.create(principal.channelId, settings, this.clock.now());
    });
  }
}
