import { inject, injectable } from 'tsyringe';
import { Clock, SegmentRepository, SequenceRuntime } from '../ports';

/**
 * The init_segment_id trigger (docs/sequences.md, "Triggers and leaving"): each active sequence
 * with a segment enrols the segment's active members it has never enrolled, set-based. Leaving
 * the segment removes nobody. Answers how many it enrolled.
 */
@injectable()
export class SyncSegmentEnrolments {
  constructor(
    @inject(SequenceRuntime) private readonly runtime: SequenceRuntime,
    @inject(SegmentRepository) private readonly segments: SegmentRepository,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(): Promise<number> {
    let enrolled = 0;
    for (const sequence of await this.runtime.segmentTriggered()) {
      const segment = await this.segments.findById(sequence.channelId, sequence.initSegmentId!);
      if (segment === null) continue;
      enrolled += await this.runtime.enrolSegment(sequence, segment.definition, this.clock.now());
    }
    return enrolled;
  }
}
