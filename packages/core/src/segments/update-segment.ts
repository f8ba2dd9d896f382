import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Clock, Repositories, SegmentRepository, type Segment, type SegmentChanges } from '../ports';
import { checkedDefinition, checkedName, SEGMENT_NOT_FOUND, segmentOrNotFound, type SegmentFields } from './segment-rules';

/** Only the fields given change; `match` alone keeps the rules, `rules` alone keeps the match. */
@injectable()
export class UpdateSegment {
  constructor(
    @inject(SegmentRepository) private readonly segments: SegmentRepository,
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, input: SegmentFields & { id: number }): Promise<Segment> {
    const current = await segmentOrNotFound(this.segments, principal.channelId, input.id);
    const changes: SegmentChanges = {};
    if (input.name !== undefined) changes.name = checkedName(input.name);
    if (input.description !== undefined) changes.description = input.description;
    if (input.rules !== undefined) {
      changes.definition = await checkedDefinition(this.repositories, principal.channelId, input.match ?? current.definition.match, input.rules);
    } else if (input.match !== undefined) {
      // The stored rules are valid already: only the match needs checking.
      const { match } = await checkedDefinition(this.repositories, principal.channelId, input.match, []);
      changes.definition = { ...current.definition, match };
    }
    const updated = await this.segments.update(principal.channelId, input.id, changes, this.clock.now());
    if (updated === null) throw new NotFoundError(SEGMENT_NOT_FOUND);
    return updated;
  }
}
