import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError, ValidationError } from '../errors';
import { SegmentRepository } from '../ports';
import { SEGMENT_BLOCKING_STATUSES, SEGMENT_IN_SEQUENCE, SEGMENT_NOT_FOUND, SEGMENT_TARGETED } from './segment-rules';

/** A segment a scheduled or sending broadcast still reads, or a sequence triggers on or excludes, cannot go (docs/segments.md). */
@injectable()
export class DeleteSegment {
  constructor(@inject(SegmentRepository) private readonly segments: SegmentRepository) {}

  async execute(principal: Principal, input: { id: number }): Promise<void> {
    const outcome = await this.segments.delete(principal.channelId, input.id, SEGMENT_BLOCKING_STATUSES);
    if (outcome === 'not_found') throw new NotFoundError(SEGMENT_NOT_FOUND);
    if (outcome === 'targeted') throw new ValidationError(SEGMENT_TARGETED);
    if (outcome === 'in_sequence') throw new ValidationError(SEGMENT_IN_SEQUENCE);
  }
}
