import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Repositories, SegmentRepository, type Segment } from '../ports';
import { checkedDefinition, checkedName, type SegmentFields } from './segment-rules';

@injectable()
export class CreateSegment {
  constructor(
    @inject(SegmentRepository) private readonly segments: SegmentRepository,
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, input: SegmentFields): Promise<Segment> {
    const name = checkedName(input.name);
    const definition = await checkedDefinition(this.repositories, principal.channelId, input.match, input.rules ?? []);
    return this.segments.create({ channelId: principal.channelId, name, description: input.description ?? null, definition }, this.clock.now());
  }
}
