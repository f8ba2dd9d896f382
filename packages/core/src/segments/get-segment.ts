import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, SegmentRepository, type Segment, type Subscriber } from '../ports';
import { evaluable, segmentOrNotFound } from './segment-rules';

export const SEGMENT_PAGE_SIZE = 250;

/** The segment with its members counted now and one page of them (pages of 250, from 1). */
@injectable()
export class GetSegment {
  constructor(
    @inject(SegmentRepository) private readonly segments: SegmentRepository,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(
    principal: Principal,
    input: { id: number; page: number; signal?: AbortSignal },
  ): Promise<{ segment: Segment; subscribersCount: number; subscribers: Subscriber[] }> {
    const segment = evaluable(await segmentOrNotFound(this.segments, principal.channelId, input.id));
    const now = this.clock.now();
    const [subscribersCount, subscribers] = await Promise.all([
      this.segments.countMembers(principal.channelId, segment.definition, now, input.signal),
      this.segments.members(
        principal.channelId,
        segment.definition,
        now,
        { limit: SEGMENT_PAGE_SIZE, offset: (input.page - 1) * SEGMENT_PAGE_SIZE },
        input.signal,
      ),
    ]);
    return { segment, subscribersCount, subscribers };
  }
}
