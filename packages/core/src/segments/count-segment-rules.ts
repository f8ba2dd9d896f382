import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Repositories, SegmentRepository } from '../ports';
import { checkedDefinition } from './segment-rules';

/**
 * The members a rule set would have, before it is saved (docs/segments.md, "Counting unsaved
 * rules"): the rules are checked exactly as a create checks them (same 422s, the cost bound
 * included), then counted through the same bounded evaluation as a segment's read.
 */
@injectable()
export class CountSegmentRules {
  constructor(
    @inject(SegmentRepository) private readonly segments: SegmentRepository,
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, input: { match?: unknown; rules?: unknown; signal?: AbortSignal }): Promise<number> {
    const definition = await checkedDefinition(this.repositories, principal.channelId, input.match, input.rules ?? []);
    return this.segments.countMembers(principal.channelId, definition, this.clock.now(), input.signal);
  }
}
